//! What `render` prints: every planned object as one YAML stream, or the agent.yml documents.

use crate::desired::PlanOptions;
use crate::discover::discover;
use crate::input_ref::{InputRef, Kind};
use crate::plan::{Plan, plan};
use crate::store::InputStore;
use crate::yaml::{self, YamlError};

/// Discovers and plans every GrafanaAgent of `inputs` (or only `only`), in (namespace, name)
/// order. Paused agents are planned as if they were not: `render` shows what they describe.
pub fn plan_all(inputs: &InputStore, opts: &PlanOptions, only: Option<&InputRef>) -> Vec<Plan> {
    inputs
        .objects::<api::GrafanaAgent>()
        .iter()
        .filter(|a| only.is_none_or(|o| *o == InputRef::of(Kind::GrafanaAgent, a.as_ref())))
        .map(|agent| plan(&discover(agent, inputs), opts))
        .collect()
}

/// Every object of every plan as one multi-document YAML stream, as it would be applied.
pub fn objects_stream(plans: &[Plan]) -> Result<String, YamlError> {
    let mut out = String::new();
    for object in plans.iter().flat_map(|p| &p.objects) {
        out.push_str("---\n");
        yaml::write_document(
            &mut out,
            &metadata_first(serde_json::to_value(&object.object)?),
        );
    }
    Ok(out)
}

/// Puts `apiVersion`, `kind` and `metadata` first, as people write manifests.
pub fn metadata_first(value: serde_json::Value) -> serde_json::Value {
    let serde_json::Value::Object(mut fields) = value else {
        return value;
    };
    let mut ordered = serde_json::Map::new();
    for key in ["apiVersion", "kind", "metadata"] {
        if let Some(v) = fields.remove(key) {
            ordered.insert(key.to_owned(), v);
        }
    }
    ordered.extend(fields);
    serde_json::Value::Object(ordered)
}

/// Every rendered agent.yml, each preceded by a comment naming its Secret.
pub fn configs_stream(plans: &[Plan]) -> String {
    let mut out = String::new();
    for p in plans {
        for c in &p.configs {
            out.push_str(&format!(
                "---\n# Secret {}/{}\n",
                p.agent.namespace, c.secret_name
            ));
            // Piece by piece: a config in pieces is not laid out for this.
            for chunk in c.text.chunks() {
                out.push_str(chunk);
            }
        }
    }
    out
}

/// Our CRDs (all, or one group) as one YAML stream: what `deploy/crds/` holds.
pub fn crds_stream(group: Option<api::crds::CrdGroup>) -> Result<String, YamlError> {
    let mut out = String::new();
    for crd in api::crds::crds(group) {
        out.push_str("---\n");
        out.push_str(&yaml::to_string(&crd)?);
    }
    Ok(out)
}
