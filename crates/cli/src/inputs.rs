//! Reading the files `render -f` names: files, directories (recursively) and stdin.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// `(source name, text)` of every input, directories expanded in sorted order.
pub fn read_all(paths: &[String]) -> Result<Vec<(String, String)>> {
    let mut inputs = Vec::new();
    for p in paths {
        if p == "-" {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("reading stdin")?;
            inputs.push(("-".to_owned(), text));
            continue;
        }
        let path = Path::new(p);
        let meta = std::fs::metadata(path).with_context(|| format!("{p}: cannot read"))?;
        let files = if meta.is_dir() {
            yaml_files(path)?
        } else {
            vec![path.to_path_buf()]
        };
        for f in files {
            let text =
                std::fs::read(&f).with_context(|| format!("{}: cannot read", f.display()))?;
            let text = String::from_utf8(text)
                .with_context(|| format!("{}: not UTF-8 text", f.display()))?;
            inputs.push((f.display().to_string(), text));
        }
    }
    Ok(inputs)
}

fn yaml_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot list", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()
        .with_context(|| format!("{}: cannot list", dir.display()))?;
    entries.sort();
    for e in entries {
        if e.is_dir() {
            found.extend(yaml_files(&e)?);
        } else if e.extension().is_some_and(|x| x == "yaml" || x == "yml") {
            found.push(e);
        }
    }
    Ok(found)
}
