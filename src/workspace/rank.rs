//! Ranked hits, sorted only as far as a caller reads them.
//!
//! A question whose words are in every file matches every passage; an answer quotes a handful.
//! [`Ranked`] keeps the hits unsorted and, when rank `i` is first asked for, selects the next
//! best batch from the unsorted rest (`select_nth_unstable_by`) and sorts only that batch. The
//! order is total (score, then file, then passage; a passage is one hit), so the ranks read are
//! exactly those of a full sort. Pure.

use std::cmp::Ordering;

use super::index::Hit;

/// The first batch sorted: enough for any default answer without a second selection.
const FIRST_BATCH: usize = 64;

/// Best first: higher score, then lower file index, then lower passage index.
pub(super) fn best_first(a: &Hit, b: &Hit) -> Ordering {
    b.score
        .total_cmp(&a.score)
        .then(a.file.cmp(&b.file))
        .then(a.chunk.cmp(&b.chunk))
}

/// Scored hits, best first as far as they have been read.
#[derive(Debug, Default)]
pub struct Ranked {
    hits: Vec<Hit>,
    /// `hits[..sorted]` are the best `sorted` hits in order; the rest are unsorted and each
    /// ranks below all of them.
    sorted: usize,
}

impl Ranked {
    /// Unsorted hits, to be ranked on demand.
    pub(super) fn new(hits: Vec<Hit>) -> Self {
        Self { hits, sorted: 0 }
    }

    /// How many hits there are.
    pub fn len(&self) -> usize {
        self.hits.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.hits.is_empty()
    }

    /// The hit at rank `i` (0 is the best), sorting the next batch when `i` was not read yet.
    pub fn get(&mut self, i: usize) -> Option<Hit> {
        if i >= self.hits.len() {
            return None;
        }
        if i >= self.sorted {
            // Double the sorted prefix (at least to `i`): reading n ranks costs O(len · log n).
            let want = (i + 1).max(self.sorted * 2).max(FIRST_BATCH);
            self.sort_to(want.min(self.hits.len()));
        }
        self.hits.get(i).copied()
    }

    /// Every hit, best first (a full sort).
    pub fn into_sorted(mut self) -> Vec<Hit> {
        self.sort_to(self.hits.len());
        self.hits
    }

    /// Makes `hits[..end]` the best `end` hits in order.
    fn sort_to(&mut self, end: usize) {
        let rest = &mut self.hits[self.sorted..];
        let batch = end - self.sorted;
        if batch == 0 {
            return;
        }
        if batch < rest.len() {
            rest.select_nth_unstable_by(batch - 1, best_first);
        }
        rest[..batch].sort_unstable_by(best_first);
        self.sorted = end;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn hit(file: usize, chunk: usize, score: f64) -> Hit {
        Hit { file, chunk, score }
    }

    /// Scores with many ties (and a NaN-free spread), in a scrambled order.
    fn scrambled(n: usize) -> Vec<Hit> {
        (0..n)
            .map(|i| {
                let k = (i * 7919) % n;
                #[allow(clippy::cast_precision_loss)]
                let score = (k % 5) as f64 * 0.25;
                hit(k / 3, k % 3, score)
            })
            .collect()
    }

    #[test]
    fn reading_any_number_of_ranks_gives_the_full_sorts_order_ties_by_file_then_passage() {
        let n = 1_000;
        let mut full = scrambled(n);
        full.sort_by(best_first);
        for read in [0, 1, 2, 63, 64, 65, 200, 999, 1_000] {
            let mut ranked = Ranked::new(scrambled(n));
            let got: Vec<Hit> = (0..read).map(|i| ranked.get(i).unwrap()).collect();
            assert_eq!(got, full[..read], "the first {read} ranks");
            assert_eq!(ranked.get(n), None, "past the end");
            assert_eq!(ranked.len(), n);
        }
        // Ties: equal scores order by file, then passage.
        let top = &full[..4];
        assert!(
            top.iter().all(|h| h.score.total_cmp(&1.0).is_eq()),
            "{top:?}"
        );
        assert!(
            top.windows(2)
                .all(|w| (w[0].file, w[0].chunk) < (w[1].file, w[1].chunk))
        );
        assert_eq!(Ranked::new(scrambled(n)).into_sorted(), full);
    }

    #[test]
    fn a_read_past_the_first_batch_sorts_only_as_far_as_asked() {
        let mut ranked = Ranked::new(scrambled(10_000));
        ranked.get(0).unwrap();
        assert_eq!(ranked.sorted, FIRST_BATCH, "one batch for the first rank");
        ranked.get(FIRST_BATCH).unwrap();
        assert_eq!(ranked.sorted, 2 * FIRST_BATCH, "the prefix doubles");
        assert!(Ranked::new(Vec::new()).get(0).is_none());
    }
}
