//! Reading the files `render -f` names: files, directories (recursively) and stdin.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The default of `--max-input-mb`: `render` holds about 22 times its input in memory (a
/// 137 MB List took 3 GB), so 64 MB of input is about 1.4 GB.
pub const DEFAULT_MAX_INPUT_MB: u64 = 64;

/// The refusal of an input that takes the total over `max_mb`, naming the file and sizes.
fn over_limit(source: &str, size: u64, total: u64, max_mb: u64) -> anyhow::Error {
    let mb = |bytes: u64| bytes.div_ceil(1 << 20);
    anyhow::anyhow!(
        "{source}: {} MB, which brings the inputs to {} MB, over the limit of {max_mb} MB \
         (render holds about 22 times its input in memory); raise it with --max-input-mb",
        mb(size),
        mb(total)
    )
}

/// `(source name, text)` of every input, directories expanded in sorted order. Refuses, before
/// reading it, the file that takes the inputs' total over `max_mb` megabytes (MiB).
pub fn read_all(paths: &[String], max_mb: u64) -> Result<Vec<(String, String)>> {
    let max = max_mb.saturating_mul(1 << 20);
    let mut total: u64 = 0;
    let mut inputs = Vec::new();
    for p in paths {
        if p == "-" {
            let mut text = String::new();
            std::io::stdin()
                .take(max.saturating_sub(total).saturating_add(1))
                .read_to_string(&mut text)
                .context("reading stdin")?;
            let size = text.len() as u64;
            if total + size > max {
                return Err(over_limit("-", size, total + size, max_mb));
            }
            total += size;
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
            let size = std::fs::metadata(&f)
                .with_context(|| format!("{}: cannot read", f.display()))?
                .len();
            if total.saturating_add(size) > max {
                let source = f.display().to_string();
                return Err(over_limit(
                    &source,
                    size,
                    total.saturating_add(size),
                    max_mb,
                ));
            }
            total += size;
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
