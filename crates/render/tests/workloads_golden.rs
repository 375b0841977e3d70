//! Golden cases of the workloads (spec 3.2-3.9): `testdata/workloads/<case>/`.
//!
//! Besides comparing the output, every case checks the invariants of the plan: every
//! workload round-trips through the k8s-openapi types and has a controller reference.

mod support;

use render::desired::DesiredObject;
use support::Golden;

fn main() {
    support::run_tests(
        "workloads",
        Golden::Everything,
        &[
            (
                "workloads_cases_round_trip_and_are_controlled",
                workloads_cases_round_trip_and_are_controlled,
            ),
            (
                "every_planned_name_is_one_its_agent_generates",
                every_planned_name_is_one_its_agent_generates,
            ),
        ],
    );
}

fn workloads_cases_round_trip_and_are_controlled() {
    for case in support::cases("workloads") {
        let out = support::render_case(&case);
        for object in out.plans.iter().flat_map(|p| &p.objects) {
            let object = &object.object;
            let what = format!("{}: {} {}", case.display(), object.kind(), object.name());
            let json = serde_json::to_value(object).expect("serialize");
            let back = match object {
                DesiredObject::Secret(_) => {
                    DesiredObject::Secret(serde_json::from_value(json).expect(&what))
                }
                DesiredObject::Service(_) => {
                    DesiredObject::Service(serde_json::from_value(json).expect(&what))
                }
                DesiredObject::StatefulSet(_) => {
                    DesiredObject::StatefulSet(serde_json::from_value(json).expect(&what))
                }
                DesiredObject::DaemonSet(_) => {
                    DesiredObject::DaemonSet(serde_json::from_value(json).expect(&what))
                }
                DesiredObject::Deployment(_) => {
                    DesiredObject::Deployment(serde_json::from_value(json).expect(&what))
                }
                DesiredObject::Role(_) => {
                    DesiredObject::Role(serde_json::from_value(json).expect(&what))
                }
                DesiredObject::RoleBinding(_) => {
                    DesiredObject::RoleBinding(serde_json::from_value(json).expect(&what))
                }
            };
            assert_eq!(&back, object, "{what}");
            let refs = object
                .metadata()
                .owner_references
                .clone()
                .unwrap_or_default();
            assert!(
                refs.iter().any(|r| r.controller == Some(true)),
                "{what}: no controller reference"
            );
        }
    }
}

/// Issue 38, item 6: name collisions between agents are found from
/// `render::desired::generated_names`, so every object any golden case plans must be listed
/// there for its agent.
fn every_planned_name_is_one_its_agent_generates() {
    for area in ["workloads", "metrics", "logs", "integrations", "sharding"] {
        for case in support::cases(area) {
            let out = support::render_case(&case);
            let text = std::fs::read_to_string(case.join("input.yaml")).expect("input.yaml");
            let mut loader = render::manifest::Loader::new();
            loader.add_source("input.yaml", &text);
            let store = loader.finish().store;
            for plan in &out.plans {
                let agent = store
                    .agents()
                    .find(|a| {
                        a.metadata.namespace.as_deref() == Some(plan.agent.namespace.as_str())
                            && a.metadata.name.as_deref() == Some(plan.agent.name.as_str())
                    })
                    .expect("the plan's agent");
                let names = render::desired::generated_names(agent);
                for object in &plan.objects {
                    // A config's segments are named after its head (content-addressed).
                    let segment_of = object
                        .object
                        .metadata()
                        .labels
                        .as_ref()
                        .and_then(|l| l.get(render::segments::SEGMENT_OF_LABEL));
                    if let Some(head) = segment_of {
                        assert!(
                            names.contains(&(object.kind(), head.clone()))
                                && render::segments::is_segment_of(object.name(), head),
                            "{}: segment {} of {head}",
                            case.display(),
                            object.name()
                        );
                        continue;
                    }
                    assert!(
                        names.contains(&(object.kind(), object.name().to_owned())),
                        "{}: {} {} {} is not in {names:?}",
                        case.display(),
                        plan.agent,
                        object.kind(),
                        object.name()
                    );
                }
            }
        }
    }
}
