//! The footer while a query is typed (the tool search, a list's filter, the result's search):
//! every character goes into the query there, so the keymap's hints of the list underneath
//! (`c call`, `/ search`) do not apply. These are the keys the query handlers take
//! (`on_search_key`, `on_filter_key`, `on_result_search_key`), which own those keys outright.

use super::App;

impl App {
    /// The hints while a query is typed, or `None` when keys go through the keymap.
    pub fn query_hints(&self) -> Option<Vec<(String, &'static str)>> {
        let hint = |k: &str, d: &'static str| (k.to_owned(), d);
        if self.searching() {
            return Some(vec![
                hint("type", "search tools"),
                hint("↑↓", "move"),
                hint("Enter", "keep the query"),
                hint("Esc", "clear the search"),
            ]);
        }
        if self.filtering() {
            return Some(vec![
                hint("type", "filter"),
                hint("↑↓", "move"),
                hint("Enter", "open"),
                hint("Esc", "clear the filter"),
            ]);
        }
        if self.result_searching() {
            return Some(vec![
                hint("type", "search the text"),
                hint("Enter", "keep the query (n/N move)"),
                hint("Esc", "drop the search"),
            ]);
        }
        None
    }
}
