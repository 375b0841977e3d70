//! The value checks an API server makes on admission beyond types: a CRD schema's `enum`,
//! `pattern`, `minLength`, `maximum` and `minimum`. An object that fails one would never reach the operator from a
//! cluster, so `render` refuses it too, naming the field and what was expected.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaProps;
use regex::Regex;
use serde_json::Value;

/// Why `value` breaks a value rule of `schema`, if it does. Type checks are the caller's.
pub fn violation(value: &Value, schema: &JSONSchemaProps) -> Option<String> {
    if let Some(allowed) = &schema.enum_
        && !allowed.iter().any(|a| &a.0 == value)
    {
        let allowed: Vec<String> = allowed.iter().map(|a| plain(&a.0)).collect();
        return Some(format!(
            "{value} is not allowed: must be one of {}",
            allowed.join(", ")
        ));
    }
    if let Some(number) = value.as_f64() {
        if let Some(max) = schema.maximum
            && number > max
        {
            return Some(format!("{value} is too large: at most {max} is allowed"));
        }
        if let Some(min) = schema.minimum
            && number < min
        {
            return Some(format!("{value} is too small: at least {min} is allowed"));
        }
    }
    let Value::String(text) = value else {
        return None;
    };
    if let Some(min) = schema.min_length
        && i64::try_from(text.chars().count()).is_ok_and(|len| len < min)
    {
        return Some(match min {
            1 => "must not be empty".to_owned(),
            _ => format!("must be at least {min} characters long"),
        });
    }
    let pattern = schema.pattern.as_deref()?;
    match compiled(pattern) {
        Some(re) if !re.is_match(text) => Some(format!(
            "{value} {}",
            pattern_meaning(pattern)
                .map(str::to_owned)
                .unwrap_or_else(|| format!("does not match the pattern {pattern}"))
        )),
        _ => None,
    }
}

/// The patterns our CRDs declare, in words.
fn pattern_meaning(pattern: &str) -> Option<&'static str> {
    if pattern == api::schema::DURATION_PATTERN {
        Some("is not a duration (e.g. 30s, 1m, 1h30m)")
    } else if pattern == api::schema::LABEL_NAME_PATTERN {
        Some("is not a label name (letters, digits and underscores, not starting with a digit)")
    } else {
        None
    }
}

/// One of our kinds as the API server admits it.
pub(crate) struct CrdSchema {
    /// Each apiVersion served, with its schema, in the CRD's order (the stored one first).
    pub(crate) versions: Vec<(String, JSONSchemaProps)>,
}

impl CrdSchema {
    /// The schema of `api_version`, if it is served.
    pub(crate) fn schema(&self, api_version: &str) -> Option<&JSONSchemaProps> {
        self.versions
            .iter()
            .find(|(served, _)| served == api_version)
            .map(|(_, schema)| schema)
    }

    /// The apiVersions served, for a message.
    pub(crate) fn served(&self) -> String {
        let names: Vec<&str> = self.versions.iter().map(|(v, _)| v.as_str()).collect();
        names.join(" or ")
    }
}

/// The schema of each of our kinds, from the CRDs we generate.
pub(crate) fn crd_schemas() -> &'static BTreeMap<String, CrdSchema> {
    static SCHEMAS: OnceLock<BTreeMap<String, CrdSchema>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        api::crds::crds(None)
            .into_iter()
            .map(|crd| {
                let group = &crd.spec.group;
                let versions = crd
                    .spec
                    .versions
                    .into_iter()
                    .filter(|v| v.served)
                    .filter_map(|v| {
                        let schema = v.schema?.open_api_v3_schema?;
                        Some((format!("{group}/{}", v.name), schema))
                    })
                    .collect();
                (crd.spec.names.kind, CrdSchema { versions })
            })
            .collect()
    })
}

/// Every pattern of our CRDs, compiled once: they are few and fixed, and the loader checks
/// them on every object.
fn compiled(pattern: &str) -> Option<&'static Regex> {
    static PATTERNS: OnceLock<BTreeMap<String, Regex>> = OnceLock::new();
    PATTERNS
        .get_or_init(|| {
            // From the schemas the loader already holds: generating the CRDs again would
            // cost a one-shot `render` a noticeable part of its start.
            let mut all = BTreeMap::new();
            for (_, schema) in crd_schemas().values().flat_map(|crd| &crd.versions) {
                collect_patterns(schema, &mut all);
            }
            all
        })
        .get(pattern)
}

fn collect_patterns(schema: &JSONSchemaProps, out: &mut BTreeMap<String, Regex>) {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
        JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
    };
    // A pattern our own CRDs declare; one that does not compile is not checked (the tests
    // compile every one of them).
    if let Some(pattern) = &schema.pattern
        && !out.contains_key(pattern)
        && let Ok(re) = Regex::new(pattern)
    {
        out.insert(pattern.clone(), re);
    }
    for child in schema.properties.iter().flat_map(|p| p.values()) {
        collect_patterns(child, out);
    }
    if let Some(JSONSchemaPropsOrArray::Schema(items)) = &schema.items {
        collect_patterns(items, out);
    }
    if let Some(JSONSchemaPropsOrBool::Schema(each)) = &schema.additional_properties {
        collect_patterns(each, out);
    }
}

fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn string_schema() -> JSONSchemaProps {
        JSONSchemaProps {
            type_: Some("string".to_owned()),
            ..Default::default()
        }
    }

    #[test]
    fn every_pattern_of_our_crds_compiles() {
        let mut seen = Vec::new();
        for crd in api::crds::crds(None) {
            let text = serde_json::to_string(&crd).expect("serializable");
            let value: Value = serde_json::from_str(&text).expect("json");
            find_patterns(&value, &mut seen);
        }
        assert!(seen.len() >= 2, "our CRDs declare patterns: {seen:?}");
        for pattern in seen {
            assert!(compiled(&pattern).is_some(), "{pattern} does not compile");
        }
    }

    fn find_patterns(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    match (k.as_str(), v) {
                        ("pattern", Value::String(p)) => out.push(p.clone()),
                        _ => find_patterns(v, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|i| find_patterns(i, out)),
            _ => {}
        }
    }

    #[test]
    fn enum_pattern_and_min_length_are_enforced_with_a_readable_message() {
        let scheme = JSONSchemaProps {
            enum_: Some(vec![
                k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSON(json!(
                    "http"
                )),
                k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSON(json!(
                    "https"
                )),
            ]),
            ..string_schema()
        };
        assert_eq!(violation(&json!("https"), &scheme), None);
        assert_eq!(
            violation(&json!("htps"), &scheme).as_deref(),
            Some("\"htps\" is not allowed: must be one of http, https")
        );
        let duration = JSONSchemaProps {
            pattern: Some(api::schema::DURATION_PATTERN.to_owned()),
            ..string_schema()
        };
        assert_eq!(violation(&json!("1h30m"), &duration), None);
        assert_eq!(violation(&json!("0"), &duration), None);
        let message = violation(&json!("30 s"), &duration).expect("a space is refused");
        assert!(
            message.starts_with("\"30 s\" is not a duration"),
            "{message}"
        );
        let token_url = JSONSchemaProps {
            min_length: Some(1),
            ..string_schema()
        };
        assert_eq!(
            violation(&json!(""), &token_url).as_deref(),
            Some("must not be empty")
        );
        assert_eq!(violation(&json!("https://t"), &token_url), None);
    }

    #[test]
    fn maximum_and_minimum_are_enforced() {
        let shards = JSONSchemaProps {
            type_: Some("integer".to_owned()),
            maximum: Some(1000.0),
            minimum: Some(-5.0),
            ..Default::default()
        };
        assert_eq!(violation(&json!(1000), &shards), None);
        assert_eq!(violation(&json!(-5), &shards), None);
        assert_eq!(
            violation(&json!(2_000_000_000), &shards).as_deref(),
            Some("2000000000 is too large: at most 1000 is allowed")
        );
        assert_eq!(
            violation(&json!(-6), &shards).as_deref(),
            Some("-6 is too small: at least -5 is allowed")
        );
    }
}
