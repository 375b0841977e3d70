//! Our generated CRDs must accept everything upstream's accept: same names, scope and short
//! names, and every upstream property at the same path with the same JSON type.

use api::crds::crds;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, JSONSchemaProps,
};

fn upstream(file: &str) -> CustomResourceDefinition {
    let path = format!("{}/tests/upstream_crds/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn schema_of(crd: &CustomResourceDefinition) -> &JSONSchemaProps {
    crd.spec.versions[0]
        .schema
        .as_ref()
        .and_then(|s| s.open_api_v3_schema.as_ref())
        .expect("schema")
}

/// Collects "path: problem" for every upstream property our schema lacks or types differently.
fn compare(
    path: &str,
    theirs: &JSONSchemaProps,
    ours: &JSONSchemaProps,
    problems: &mut Vec<String>,
) {
    let int_or_string = |s: &JSONSchemaProps| s.x_kubernetes_int_or_string == Some(true);
    if int_or_string(theirs) != int_or_string(ours) {
        problems.push(format!("{path}: int-or-string differs"));
        return;
    }
    if theirs.type_ != ours.type_ {
        problems.push(format!(
            "{path}: type {:?} upstream, {:?} ours",
            theirs.type_, ours.type_
        ));
        return;
    }
    if theirs.x_kubernetes_preserve_unknown_fields != ours.x_kubernetes_preserve_unknown_fields {
        problems.push(format!("{path}: preserve-unknown-fields differs"));
    }
    if let Some(props) = &theirs.properties {
        let empty = Default::default();
        let our_props = ours.properties.as_ref().unwrap_or(&empty);
        for (name, their_prop) in props {
            let field = format!("{path}.{name}");
            match our_props.get(name) {
                Some(our_prop) => compare(&field, their_prop, our_prop, problems),
                None if accepted_difference(&field) => {}
                None => problems.push(format!("{field}: missing")),
            }
        }
    }
    if let (Some(theirs), Some(ours)) = (&theirs.items, &ours.items) {
        use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaPropsOrArray::Schema;
        if let (Schema(t), Schema(o)) = (theirs, ours) {
            compare(&format!("{path}[]"), t, o, problems);
        }
    } else if theirs.items.is_some() {
        problems.push(format!("{path}: items missing"));
    }
    if let (Some(theirs), Some(ours)) = (&theirs.additional_properties, &ours.additional_properties)
    {
        use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaPropsOrBool::Schema;
        if let (Schema(t), Schema(o)) = (theirs, ours) {
            compare(&format!("{path}{{}}"), t, o, problems);
        }
    } else if theirs.additional_properties.is_some() {
        problems.push(format!("{path}: additionalProperties missing"));
    }
}

/// Differences we accept on purpose, each with its reason.
fn accepted_difference(field: &str) -> bool {
    // The API server supplies apiVersion, kind and metadata for every object; kube-derive
    // leaves them out of the generated schema, as controller-gen's do not.
    let top_level = ["apiVersion", "kind", "metadata"]
        .iter()
        .any(|f| field.ends_with(&format!(".com.{f}")));
    // Kubernetes 1.29 split PVC `resources` into VolumeResourceRequirements, which has no
    // `claims`: the API server drops it from PVC specs whatever the CRD says.
    let pvc_claims = field.ends_with("volumeClaimTemplate.spec.resources.claims");
    top_level || pvc_claims
}

#[test]
fn every_upstream_field_exists_with_the_same_type() {
    let ours = crds(None);
    let mut problems = Vec::new();
    let dir = format!("{}/tests/upstream_crds", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("upstream CRDs")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf-8"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 8, "the eight upstream CRDs");
    for file in files {
        let theirs = upstream(&file);
        let name = theirs.metadata.name.clone().expect("name");
        let Some(mine) = ours
            .iter()
            .find(|c| c.metadata.name.as_deref() == Some(name.as_str()))
        else {
            problems.push(format!("{name}: no such CRD of ours"));
            continue;
        };
        let (t, m) = (&theirs.spec, &mine.spec);
        assert_eq!(t.group, m.group, "{name} group");
        assert_eq!(t.scope, m.scope, "{name} scope");
        assert_eq!(t.names.kind, m.names.kind, "{name} kind");
        assert_eq!(t.names.plural, m.names.plural, "{name} plural");
        assert_eq!(t.names.singular, m.names.singular, "{name} singular");
        assert_eq!(
            t.names.short_names.clone().unwrap_or_default(),
            m.names.short_names.clone().unwrap_or_default(),
            "{name} short names"
        );
        // Our PodLogs CRD also serves Alloy's v1alpha2 and carries Alloy's categories too
        // (alloy_pod_logs_v1alpha2_is_served_with_every_field_of_alloys_schema).
        let mut our_categories = m.names.categories.clone().unwrap_or_default();
        if name == POD_LOGS {
            our_categories.retain(|c| !ALLOY_CATEGORIES.contains(&c.as_str()));
        }
        assert_eq!(
            t.names.categories.clone().unwrap_or_default(),
            our_categories,
            "{name} categories"
        );
        assert_eq!(t.versions.len(), 1);
        assert_eq!(t.versions[0].name, m.versions[0].name, "{name} version");
        assert!(
            m.versions[0].served && m.versions[0].storage,
            "{name} served and stored"
        );
        compare(&name, schema_of(&theirs), schema_of(mine), &mut problems);
    }
    assert!(
        problems.is_empty(),
        "{} differences:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn grafana_kinds_have_a_status_subresource_and_coreos_kinds_do_not() {
    for crd in crds(None) {
        let has_status = crd.spec.versions[0]
            .subresources
            .as_ref()
            .is_some_and(|s| s.status.is_some());
        assert_eq!(
            has_status,
            crd.spec.group == api::GRAFANA_GROUP,
            "{:?}",
            crd.metadata.name
        );
    }
}

/// The rules a real API server enforces on CRD schemas ("structural schemas"): every node has a
/// type (unless it is int-or-string or preserves unknown fields), and `properties` never stands
/// beside `additionalProperties`.
fn structural_problems(path: &str, s: &JSONSchemaProps, problems: &mut Vec<String>) {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
        JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
    };
    let exempt = s.x_kubernetes_int_or_string == Some(true)
        || s.x_kubernetes_preserve_unknown_fields == Some(true);
    if s.type_.is_none() && !exempt {
        problems.push(format!("{path}: no type"));
    }
    if s.properties.is_some() && s.additional_properties.is_some() {
        problems.push(format!("{path}: properties beside additionalProperties"));
    }
    for (field, value) in [
        ("anyOf", &s.any_of),
        ("oneOf", &s.one_of),
        ("allOf", &s.all_of),
    ] {
        if let Some(branches) = value {
            for b in branches {
                if b.type_.is_some() || b.properties.is_some() || b.default.is_some() {
                    problems.push(format!(
                        "{path}.{field}: a branch declares a type, properties or a default"
                    ));
                }
            }
        }
    }
    for (name, p) in s.properties.iter().flatten() {
        structural_problems(&format!("{path}.{name}"), p, problems);
    }
    if let Some(JSONSchemaPropsOrArray::Schema(items)) = &s.items {
        structural_problems(&format!("{path}[]"), items, problems);
    }
    if let Some(JSONSchemaPropsOrBool::Schema(additional)) = &s.additional_properties {
        structural_problems(&format!("{path}{{}}"), additional, problems);
    }
}

#[test]
fn generated_schemas_are_structural() {
    let mut problems = Vec::new();
    for crd in crds(None) {
        structural_problems(
            crd.metadata.name.as_deref().unwrap_or_default(),
            schema_of(&crd),
            &mut problems,
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn declared_defaults_match_upstream() {
    let all = crds(None);
    let crd = |name: &str| {
        all.iter()
            .find(|c| c.metadata.name.as_deref() == Some(name))
            .expect(name)
    };
    let spec =
        |name: &str| schema_of(crd(name)).properties.as_ref().expect("props")["spec"].clone();
    let probe = spec("probes.monitoring.coreos.com");
    let prober = &probe.properties.as_ref().expect("probe props")["prober"];
    let path = &prober.properties.as_ref().expect("prober props")["path"];
    assert_eq!(
        path.default.as_ref().map(|d| d.0.clone()),
        Some(serde_json::json!("/probe"))
    );
    let agent = spec("grafanaagents.monitoring.grafana.com");
    for flag in [
        "enableConfigReadAPI",
        "disableReporting",
        "disableSupportBundle",
    ] {
        let d = agent.properties.as_ref().expect("agent props")[flag]
            .default
            .clone();
        assert_eq!(d.map(|d| d.0), Some(serde_json::json!(false)), "{flag}");
    }
    let pod_logs = spec("podlogs.monitoring.grafana.com");
    let relabel = match &pod_logs.properties.as_ref().expect("props")["relabelings"].items {
        Some(k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaPropsOrArray::Schema(s)) => s.clone(),
        _ => panic!("relabelings items"),
    };
    let action = &relabel.properties.as_ref().expect("relabel props")["action"];
    assert_eq!(
        action.default.as_ref().map(|d| d.0.clone()),
        Some(serde_json::json!("replace"))
    );
}

/// Collects "path keyword: value" for every `default`, `enum`, `pattern` and `minLength`
/// declared in `s`: what the API server applies or enforces on admission.
fn validations(path: &str, s: &JSONSchemaProps, out: &mut Vec<String>) {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
        JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
    };
    if let Some(d) = &s.default {
        out.push(format!("{path} default: {}", d.0));
    }
    // One entry per value: ours must accept every value upstream's accepts, and may accept
    // more that a newer prometheus-operator added (a monitor endpoint's `HTTPS`).
    for v in s.enum_.iter().flatten() {
        out.push(format!("{path} enum value: {}", v.0));
    }
    // k8s-openapi's Quantity schema has no pattern; the API server still checks quantities
    // when the operator applies the pods that carry them.
    if let Some(pattern) = s
        .pattern
        .as_ref()
        .filter(|p| !p.starts_with(QUANTITY_PATTERN_START))
    {
        out.push(format!("{path} pattern: {pattern}"));
    }
    if let Some(min) = s.min_length {
        out.push(format!("{path} minLength: {min}"));
    }
    for (name, p) in s.properties.iter().flatten() {
        validations(&format!("{path}.{name}"), p, out);
    }
    if let Some(JSONSchemaPropsOrArray::Schema(items)) = &s.items {
        validations(&format!("{path}[]"), items, out);
    }
    if let Some(JSONSchemaPropsOrBool::Schema(additional)) = &s.additional_properties {
        validations(&format!("{path}{{}}"), additional, out);
    }
}

const QUANTITY_PATTERN_START: &str = r"^(\+|-)?(([0-9]+";

/// The API server applies a CRD's defaults before anyone reads the object and refuses values
/// outside its enums and patterns, so a default or a check upstream declares and we do not
/// would change what the operator sees (and `render` applies and checks ours offline). Every
/// one upstream declares must be ours too, at the same path, with the same value.
#[test]
fn every_upstream_default_enum_and_pattern_is_declared_by_ours() {
    let ours = crds(None);
    let dir = format!("{}/tests/upstream_crds", env!("CARGO_MANIFEST_DIR"));
    let mut missing = Vec::new();
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("upstream CRDs") {
        let file = entry
            .expect("entry")
            .file_name()
            .into_string()
            .expect("utf-8");
        let theirs = upstream(&file);
        let name = theirs.metadata.name.clone().expect("name");
        let mine = ours
            .iter()
            .find(|c| c.metadata.name.as_deref() == Some(name.as_str()))
            .expect("a CRD of ours for each upstream CRD");
        let (mut t, mut m) = (Vec::new(), Vec::new());
        validations(&name, schema_of(&theirs), &mut t);
        validations(&name, schema_of(mine), &mut m);
        checked += t.len();
        missing.extend(t.into_iter().filter(|d| !m.contains(d)));
    }
    assert!(
        checked >= 50,
        "upstream declares at least 50 defaults, enums, patterns and minLengths, found {checked}"
    );
    assert!(
        missing.is_empty(),
        "not declared by ours:\n{}",
        missing.join("\n")
    );
}

const POD_LOGS: &str = "podlogs.monitoring.grafana.com";
const ALLOY_CATEGORIES: [&str; 2] = ["grafana-alloy", "alloy"];

/// Grafana Alloy's PodLogs CRD (monitoring.grafana.com/v1alpha2, read by its
/// `loki.source.podlogs`), beside the upstream ones.
fn alloy_pod_logs() -> CustomResourceDefinition {
    upstream("../alloy_crds/monitoring.grafana.com_podlogs.yaml")
}

fn version_schema<'a>(crd: &'a CustomResourceDefinition, version: &str) -> &'a JSONSchemaProps {
    crd.spec
        .versions
        .iter()
        .find(|v| v.name == version)
        .and_then(|v| v.schema.as_ref())
        .and_then(|s| s.open_api_v3_schema.as_ref())
        .unwrap_or_else(|| panic!("no schema for {version}"))
}

/// Our PodLogs CRD can replace Alloy's: it serves v1alpha2 with every field of Alloy's schema
/// at the same path and type, every default, pattern and enum value Alloy's declares, and
/// Alloy's names and categories; and v1alpha1 stays the stored version.
#[test]
fn alloy_pod_logs_v1alpha2_is_served_with_every_field_of_alloys_schema() {
    let theirs = alloy_pod_logs();
    let all = crds(None);
    let ours = all
        .iter()
        .find(|c| c.metadata.name.as_deref() == Some(POD_LOGS))
        .expect("our PodLogs CRD");
    let (t, m) = (&theirs.spec, &ours.spec);
    assert_eq!(theirs.metadata.name.as_deref(), Some(POD_LOGS));
    assert_eq!((&t.group, &t.scope), (&m.group, &m.scope));
    assert_eq!(
        (&t.names.kind, &t.names.plural, &t.names.singular),
        (&m.names.kind, &m.names.plural, &m.names.singular)
    );
    let our_categories = m.names.categories.clone().unwrap_or_default();
    for category in t.names.categories.iter().flatten() {
        assert!(our_categories.contains(category), "category {category}");
    }
    assert_eq!(t.versions.len(), 1);
    let served: Vec<(&str, bool, bool)> = m
        .versions
        .iter()
        .map(|v| (v.name.as_str(), v.served, v.storage))
        .collect();
    assert_eq!(
        served,
        [
            ("v1alpha1", true, true),
            (t.versions[0].name.as_str(), true, false)
        ]
    );
    assert_eq!(
        m.conversion.as_ref().map(|c| c.strategy.as_str()),
        Some("None")
    );

    let mut problems = Vec::new();
    compare(
        POD_LOGS,
        version_schema(&theirs, "v1alpha2"),
        version_schema(ours, "v1alpha2"),
        &mut problems,
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    // Alloy's enums must be within ours (ours adds keepequal and dropequal); every other
    // default and pattern must be ours too.
    let (mut their_rules, mut our_rules) = (Vec::new(), Vec::new());
    validations(
        POD_LOGS,
        version_schema(&theirs, "v1alpha2"),
        &mut their_rules,
    );
    validations(POD_LOGS, version_schema(ours, "v1alpha2"), &mut our_rules);
    assert!(their_rules.len() >= 3, "{their_rules:?}");
    for rule in &their_rules {
        let declared = match rule.split_once(" enum: ") {
            Some((path, values)) => our_rules.iter().any(|o| {
                o.split_once(" enum: ").is_some_and(|(p, ours)| {
                    let ours: Vec<&str> = ours.split(',').collect();
                    p == path && values.split(',').all(|v| ours.contains(&v))
                })
            }),
            None => our_rules.contains(rule),
        };
        assert!(declared, "not declared by ours: {rule}");
    }
}

/// Without a conversion webhook the API server stores an object as written and, read in the
/// other version, prunes it with that version's schema: both versions must have one schema,
/// one status subresource and the same columns, or a write through one version (kubectl uses
/// v1alpha2, the preferred one) would erase what only the other declares.
#[test]
fn both_pod_logs_versions_serve_one_schema() {
    let all = crds(None);
    let ours = all
        .iter()
        .find(|c| c.metadata.name.as_deref() == Some(POD_LOGS))
        .expect("our PodLogs CRD");
    let [stored, alloy] = &ours.spec.versions[..] else {
        panic!("two versions: {:?}", ours.spec.versions);
    };
    assert_eq!(stored.schema, alloy.schema);
    assert_eq!(stored.subresources, alloy.subresources);
    assert_eq!(
        stored.additional_printer_columns,
        alloy.additional_printer_columns
    );
    assert!(
        stored
            .subresources
            .as_ref()
            .is_some_and(|s| s.status.is_some())
    );
}
