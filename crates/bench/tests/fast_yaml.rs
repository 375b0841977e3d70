//! The subset YAML reader `render` uses for speed reads every document it accepts exactly as
//! the full parser does: checked on generated inputs and on every YAML file of the
//! repository (examples, test cases, CRDs).

use std::path::{Path, PathBuf};

use bench::generate::{Params, generate};
use render::yaml::read_simple_document;
use serde_json::Value;

/// Documents of a YAML stream, split as the manifest loader splits them.
fn documents(text: &str) -> Vec<String> {
    let mut docs = vec![String::new()];
    for line in text.lines() {
        if line == "---" || line.starts_with("--- ") {
            docs.push(String::new());
        } else if let Some(d) = docs.last_mut() {
            d.push_str(line);
            d.push('\n');
        }
    }
    docs
}

/// (documents read by the subset reader, documents in all).
fn check(name: &str, text: &str) -> (usize, usize) {
    let mut read = 0;
    let docs: Vec<String> = documents(text)
        .into_iter()
        .filter(|d| !d.trim().is_empty())
        .collect();
    for (i, doc) in docs.iter().enumerate() {
        if let Some(fast) = read_simple_document(doc) {
            let full: Value = serde_saphyr::from_str(doc).unwrap_or_else(|e| {
                panic!("{name} document {}: the full parser fails: {e}", i + 1)
            });
            assert_eq!(fast, full, "{name} document {}", i + 1);
            read += 1;
        }
    }
    (read, docs.len())
}

fn yaml_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            yaml_files(&path, found);
        } else if path.extension().is_some_and(|x| x == "yaml" || x == "yml") {
            found.push(path);
        }
    }
}

#[test]
fn generated_inputs_are_read_by_the_subset_reader_exactly() {
    let mut p = Params::scaled(400, 9);
    p.agents = 3;
    let (mut read, mut total) = (0, 0);
    for (name, text) in generate(&p).files {
        let (r, t) = check(&name, &text);
        read += r;
        total += t;
    }
    // The generator writes plain block YAML: every document takes the fast path.
    assert_eq!(read, total);
}

#[test]
fn the_repository_yaml_files_are_read_identically_or_left_to_the_full_parser() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["examples", "testdata", "deploy"] {
        yaml_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 5, "{} YAML files found", files.len());
    let (mut read, mut total) = (0, 0);
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read");
        let (r, t) = check(&f.display().to_string(), &text);
        read += r;
        total += t;
    }
    assert!(read > 0 && read <= total);
}
