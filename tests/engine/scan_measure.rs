//! The poisoning scan measured on its labelled corpus (`tests/scan_corpus/`, see its README):
//! poisoned definitions modelled on published attacks, benign catalogs captured from real
//! servers, each split into a development part (the rules were tuned on it) and a held-out
//! part (never used for that). Holds the scan to ≥ 90 % detection and ≤ 1 % false positives,
//! overall and on the held-out parts alone, and prints the figures the README states.

use std::path::Path;

use mcpdeck::mcp::scan::{Definition, Kind, scan_definition};
use serde_json::Value;

fn corpus() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/scan_corpus"))
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("corpus file")).expect("JSON")
}

/// Every poisoned case of one file: (id, definition).
fn poisoned(part: &str) -> Vec<(String, Definition)> {
    let file = read(&corpus().join("poisoned").join(format!("{part}.json")));
    file["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|case| {
            let kind = Kind::from_label(case["kind"].as_str().expect("kind")).expect("a kind");
            let id = case["id"].as_str().expect("id").to_owned();
            (id, Definition::new(kind, case["definition"].clone()))
        })
        .collect()
}

/// Every definition of every captured catalog in one benign part: (file · name, definition).
fn benign(part: &str) -> Vec<(String, Definition)> {
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(corpus().join("benign").join(part))
        .expect("benign part")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    for path in files {
        let catalog = read(&path);
        let file = path
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let server = serde_json::json!({
            "serverInfo": catalog["serverInfo"], "instructions": catalog["instructions"]});
        out.push((
            format!("{file} · server"),
            Definition::new(Kind::Server, server),
        ));
        for (key, kind) in [
            ("tools", Kind::Tool),
            ("prompts", Kind::Prompt),
            ("resourceTemplates", Kind::ResourceTemplate),
        ] {
            for value in catalog[key].as_array().expect("a list") {
                let d = Definition::new(kind, value.clone());
                out.push((format!("{file} · {}", d.name), d));
            }
        }
    }
    out
}

/// (flagged, total), printing each flagged (or, for poisoned ones, missed) definition.
fn count(label: &str, cases: &[(String, Definition)], poisoned: bool) -> (usize, usize) {
    let mut flagged = 0;
    for (id, d) in cases {
        let findings = scan_definition(d);
        if !findings.is_empty() {
            flagged += 1;
        }
        if findings.is_empty() == poisoned {
            let rules: Vec<&str> = findings.iter().map(|f| f.rule).collect();
            println!(
                "{label}: {} {id} {rules:?}",
                if poisoned { "missed" } else { "flagged" }
            );
        }
    }
    (flagged, cases.len())
}

fn percent((n, total): (usize, usize)) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let rate = n as f64 * 100.0 / total as f64;
    rate
}

#[test]
fn the_scan_catches_poisoned_definitions_and_leaves_real_catalogs_alone() {
    let mut figures = Vec::new();
    let mut sums = [(0, 0); 2];
    for part in ["dev", "heldout"] {
        let caught = count(&format!("poisoned/{part}"), &poisoned(part), true);
        let flagged = count(&format!("benign/{part}"), &benign(part), false);
        assert!(
            caught.1 >= 20 && flagged.1 >= 20,
            "{part}: a corpus this small says nothing"
        );
        for (sum, (n, t)) in sums.iter_mut().zip([caught, flagged]) {
            sum.0 += n;
            sum.1 += t;
        }
        figures.push((part, caught, flagged));
    }
    figures.push(("all", sums[0], sums[1]));
    for (part, caught, flagged) in &figures {
        println!(
            "{part}: detection {}/{} = {:.1} %, false positives {}/{} = {:.1} %",
            caught.0,
            caught.1,
            percent(*caught),
            flagged.0,
            flagged.1,
            percent(*flagged)
        );
    }
    for (part, caught, flagged) in figures {
        assert!(
            percent(caught) >= 90.0,
            "{part}: detection {caught:?} below 90 %"
        );
        assert!(
            percent(flagged) <= 1.0,
            "{part}: false positives {flagged:?} above 1 %"
        );
    }
}
