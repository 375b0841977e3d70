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
        &[(
            "workloads_cases_round_trip_and_are_controlled",
            workloads_cases_round_trip_and_are_controlled,
        )],
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
