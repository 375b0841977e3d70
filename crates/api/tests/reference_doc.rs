//! `docs/crd-reference.md` must be what the types generate (`UPDATE_GOLDEN=1` rewrites it).

use std::path::PathBuf;

#[test]
fn committed_reference_matches_the_generated_one() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/crd-reference.md");
    let generated = api::reference::markdown();
    if std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &generated).expect("write docs/crd-reference.md");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/crd-reference.md is stale: run \
         `UPDATE_GOLDEN=1 cargo test -p agent-operator-api --test reference_doc`"
    );
}
