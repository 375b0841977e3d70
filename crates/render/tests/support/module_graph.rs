//! Reads a crate's top-level module graph from its sources, for the tests that keep it free of
//! cycles (render's and the controller's `tests/module_graph.rs` include this file). The
//! edges are the `crate::<module>` paths in each module's non-test code (comments and
//! `#[cfg(test)]` modules left out).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("read src")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of `text` without comments and without the `#[cfg(test)]` module, which by the
/// crate's convention closes the file.
fn production_code(text: &str) -> String {
    let code = match text.find("#[cfg(test)]\nmod ") {
        Some(at) => &text[..at],
        None => text,
    };
    code.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The leading identifier of each top-level item of a `{a::b, c, d::{e, f}}` use group.
fn group_heads(group: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut item_start = true;
    let mut current = String::new();
    for c in group.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                if !current.is_empty() {
                    heads.push(std::mem::take(&mut current));
                }
                item_start = true;
                continue;
            }
            _ => {}
        }
        if depth == 0 && item_start {
            if c.is_alphanumeric() || c == '_' {
                current.push(c);
            } else if !current.is_empty() {
                heads.push(std::mem::take(&mut current));
                item_start = false;
            }
        }
    }
    if !current.is_empty() {
        heads.push(current);
    }
    heads
}

/// Every name `code` reaches through `crate::`, including each head of a use group.
pub fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let end = group
                .char_indices()
                .find(|&(_, c)| {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    depth == 0
                })
                .map_or(group.len(), |(i, _)| i);
            names.extend(group_heads(&group[..end]));
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            names.insert(name);
        }
    }
    names
}

/// Top-level module of the crate whose sources are in `src` -> the top-level modules its
/// code uses.
pub fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let module_of = |path: &Path| -> String {
        let relative = path.strip_prefix(src).expect("under src");
        let first = relative.components().next().expect("a component");
        first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned()
    };
    // The modules lib.rs declares (a file it does not declare is not compiled).
    let lib = fs::read_to_string(src.join("lib.rs")).expect("read lib.rs");
    let modules: BTreeSet<String> = lib
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l
                .strip_prefix("pub(crate) ")
                .or_else(|| l.strip_prefix("pub "))
                .unwrap_or(l);
            l.strip_prefix("mod ")?.strip_suffix(';')
        })
        .map(str::to_owned)
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(file);
        if !modules.contains(&module) {
            continue;
        }
        let code = production_code(&fs::read_to_string(file).expect("read source"));
        let uses = graph.entry(module.clone()).or_default();
        for name in crate_paths(&code) {
            if modules.contains(&name) && name != module {
                uses.insert(name);
            }
        }
    }
    graph
}

/// One cycle of `graph`, if it has any (depth-first search, in name order).
pub fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit<'a>(
        node: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| *n == node) {
            let mut cycle: Vec<String> = path[at..].iter().map(|n| (*n).to_owned()).collect();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node);
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node);
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

/// Fails with the cycle and every edge when the graph of the crate in `src` has a cycle.
pub fn assert_acyclic(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let graph = module_graph(src);
    if let Some(cycle) = find_cycle(&graph) {
        let edges: Vec<String> = graph
            .iter()
            .map(|(m, uses)| format!("{m} -> {uses:?}"))
            .collect();
        panic!("module cycle: {}\n{}", cycle.join(" -> "), edges.join("\n"));
    }
    graph
}
