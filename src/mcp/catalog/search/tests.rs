use super::*;

fn index(tools: &[(&'static str, Option<&'static str>, Option<&'static str>)]) -> ToolIndex {
    ToolIndex::from_fields(tools.iter().copied())
}

fn names<'a>(
    tools: &[(&'a str, Option<&'a str>, Option<&'a str>)],
    hits: &[SearchHit],
) -> Vec<&'a str> {
    hits.iter().map(|h| tools[h.index].0).collect()
}

const CATALOG: [(&str, Option<&str>, Option<&str>); 9] = [
    ("list_issues", None, Some("List issues in a repository")),
    ("issue", None, Some("Get one issue")),
    ("create_issue", Some("Create Issue"), None),
    ("issues_search", None, None),
    ("close", Some("Close an ISSUE"), None),
    ("comment", None, Some("Comment on an issue")),
    ("Issue", None, None),
    ("annotate", None, Some("nothing relevant")),
    (
        "assign",
        Some("Assign"),
        Some("Assign someone to an issue or pull request"),
    ),
];

#[test]
fn ranks_exact_prefix_substring_title_description() {
    let idx = index(&CATALOG);
    let hits = idx.search("ISSUE");
    assert_eq!(
        names(&CATALOG, &hits),
        vec![
            "Issue", // exact (case-insensitive); "I" < "i" in byte order
            "issue",
            "issues_search", // prefix
            "create_issue",  // substring, by name
            "list_issues",
            "close",  // title
            "assign", // description, by name
            "comment",
        ]
    );
    let ranks: Vec<MatchRank> = hits.iter().map(|h| h.rank).collect();
    assert_eq!(
        ranks,
        vec![
            MatchRank::ExactName,
            MatchRank::ExactName,
            MatchRank::NamePrefix,
            MatchRank::NameSubstring,
            MatchRank::NameSubstring,
            MatchRank::Title,
            MatchRank::Description,
            MatchRank::Description,
        ]
    );
}

#[test]
fn every_term_must_match_somewhere() {
    let idx = index(&CATALOG);
    let hits = idx.search("assign  PULL");
    assert_eq!(names(&CATALOG, &hits), vec!["assign"]);
    assert_eq!(hits[0].rank, MatchRank::Description);
    assert!(idx.search("issue nonexistent").is_empty());
    assert!(idx.search("   ").is_empty());
    // Terms may match in different fields.
    let hits = idx.search("create issue");
    assert_eq!(names(&CATALOG, &hits), vec!["create_issue"]);
    assert_eq!(hits[0].rank, MatchRank::NamePrefix);
}

#[test]
fn terms_never_match_across_fields() {
    let tools = [("ab", Some("cd"), None)];
    let idx = index(&tools);
    assert!(idx.search("bc").is_empty());
    assert_eq!(
        idx.search("ab cd").len(),
        1,
        "terms may match different fields"
    );
}

#[test]
fn same_input_same_output_and_at_most_twenty() {
    let owned: Vec<(String, String)> = (0..100)
        .rev()
        .map(|i| (format!("tool_{i:03}"), format!("does thing {i}")))
        .collect();
    let fields: Vec<(&str, Option<&str>, Option<&str>)> = owned
        .iter()
        .map(|(n, d)| (n.as_str(), None, Some(d.as_str())))
        .collect();
    let idx = ToolIndex::from_fields(fields.iter().copied());
    let a = idx.search("tool");
    assert_eq!(a.len(), MAX_SEARCH_RESULTS);
    assert_eq!(a, idx.search("tool"));
    let got = names(&fields, &a);
    assert_eq!(got[0], "tool_000");
    assert_eq!(got[19], "tool_019");
    // The total counts every match, not only the twenty kept.
    assert_eq!(idx.search_counted("tool"), (a, 100));
    // 4, 14, …, 94 and 40 to 49: nineteen numbers hold a 4.
    assert_eq!(idx.search_counted("thing 4").1, 19);
    assert_eq!(idx.search_counted("tool_042").1, 1);
    assert_eq!(idx.search_counted("nothing").1, 0);
}

#[test]
fn ten_thousand_tools() {
    let owned: Vec<(String, String, String)> = (0..10_000)
        .map(|i| {
            (
                format!("server_tool_{i:05}"),
                format!("Tool number {i}"),
                format!("Does operation {i} on the widget catalog; see docs for more detail."),
            )
        })
        .collect();
    let idx = ToolIndex::from_fields(
        owned
            .iter()
            .map(|(n, t, d)| (n.as_str(), Some(t.as_str()), Some(d.as_str()))),
    );
    assert_eq!(idx.len(), 10_000);
    let hits = idx.search("server_tool_04242");
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].rank, MatchRank::ExactName);
    assert_eq!(hits[0].index, 4242);
    let hits = idx.search("widget 99");
    assert_eq!(hits.len(), MAX_SEARCH_RESULTS);
    let hits = idx.search("number 9999");
    assert_eq!(hits[0].index, 9999);
    assert_eq!(hits[0].rank, MatchRank::Title);
    // The 1 ms bar is measured by the benchmarks on an idle machine; here a
    // generous bound in optimised builds only catches accidental quadratic work.
    if !cfg!(debug_assertions) {
        let start = std::time::Instant::now();
        for _ in 0..100 {
            std::hint::black_box(idx.search("widget catalog 9"));
        }
        let per_query = start.elapsed() / 100;
        assert!(per_query.as_micros() <= 10_000, "{per_query:?} per query");
    }
}

/// The plain definition of search, field by field, for comparison with the index.
fn reference_search(tools: &[(String, String, String)], query: &str) -> Vec<SearchHit> {
    let terms = query_terms(query);
    if terms.is_empty() {
        return Vec::new();
    }
    let joined = terms.join(" ");
    let mut hits: Vec<(MatchRank, &str, usize)> = Vec::new();
    for (index, (name, title, description)) in tools.iter().enumerate() {
        let (n, t, d) = (
            name.to_lowercase(),
            title.to_lowercase(),
            description.to_lowercase(),
        );
        let in_name = terms.iter().all(|x| n.contains(x.as_str()));
        let in_title = terms
            .iter()
            .all(|x| n.contains(x.as_str()) || t.contains(x.as_str()));
        let anywhere = terms
            .iter()
            .all(|x| n.contains(x.as_str()) || t.contains(x.as_str()) || d.contains(x.as_str()));
        let rank = if n == joined {
            MatchRank::ExactName
        } else if in_name && n.starts_with(terms[0].as_str()) {
            MatchRank::NamePrefix
        } else if in_name {
            MatchRank::NameSubstring
        } else if in_title {
            MatchRank::Title
        } else if anywhere {
            MatchRank::Description
        } else {
            continue;
        };
        hits.push((rank, name.as_str(), index));
    }
    hits.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(a.1.as_bytes().cmp(b.1.as_bytes()))
            .then(a.2.cmp(&b.2))
    });
    hits.into_iter()
        .take(MAX_SEARCH_RESULTS)
        .map(|(rank, _, index)| SearchHit { index, rank })
        .collect()
}

proptest::proptest! {
    #[test]
    fn the_index_agrees_with_the_plain_definition(
        tools in proptest::collection::vec(
            ("[a-cA-C_]{1,6}", "[a-c ]{0,8}", "[a-cé ]{0,12}"), 0..60),
        query in "[a-cA-C_ ]{0,7}",
    ) {
        let index = ToolIndex::from_fields(
            tools.iter().map(|(n, t, d)| (n.as_str(), Some(t.as_str()), Some(d.as_str()))),
        );
        proptest::prop_assert_eq!(index.search(&query), reference_search(&tools, &query));
    }
}
