//! A MetricsInstance's `additionalScrapeConfigs`: a Secret value holding a YAML list of
//! Prometheus scrape configs, appended verbatim to the instance's `scrape_configs`.

use std::fmt::Display;

use serde_json::Value;

use crate::config::common::FieldError;
use crate::rejection::Reason;

/// Parses an `additionalScrapeConfigs` value into its scrape configs, as written: nulls,
/// empty maps and lists are kept and numbers keep their type. The text is read the way the
/// agent reads its own config (YAML 1.1: `yes`/`on` are booleans, `0755` is octal), so the
/// copy means what the user meant. An empty value is an empty list.
///
/// Fails when the value is not YAML, not a list, an item is not a map, or an item has no
/// `job_name` string: the agent would refuse the whole config. `source` names where the text
/// was read (`key "k" of Secret ns/name`): a message names it, the line and the column, and
/// never quotes the text, which is a Secret's value (it ends up in status and Events).
pub fn parse(text: &str, field: &str, source: &dyn Display) -> Result<Vec<Value>, FieldError> {
    let mut options = serde_saphyr::options::Options::default();
    options.legacy_octal_numbers = true;
    let value: Value = serde_saphyr::from_str_with_options(text, options).map_err(|e| {
        FieldError::because(
            Reason::InvalidYaml,
            field,
            format!(
                "{source}: not valid YAML: {}",
                crate::yaml::describe_parse_error(&e)
            ),
        )
    })?;
    let items = match value {
        Value::Null => return Ok(Vec::new()),
        Value::Array(items) => items,
        other => {
            return Err(FieldError::because(
                Reason::InvalidYaml,
                field,
                format!(
                    "{source}: must be a YAML list of scrape configs, not {}",
                    kind_of(&other)
                ),
            ));
        }
    };
    for (i, item) in items.iter().enumerate() {
        let Value::Object(map) = item else {
            return Err(FieldError::because(
                Reason::InvalidYaml,
                field,
                format!(
                    "{source}: item [{i}] must be a scrape config (a map), not {}",
                    kind_of(item)
                ),
            ));
        };
        match map.get("job_name") {
            Some(Value::String(name)) if !name.is_empty() => {}
            _ => {
                return Err(FieldError::because(
                    Reason::InvalidYaml,
                    field,
                    format!("{source}: item [{i}] has no job_name"),
                ));
            }
        }
    }
    Ok(items)
}

/// The `job_name` of a parsed item (checked by [`parse`]).
pub fn job_name(item: &Value) -> &str {
    item.get("job_name")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn items_are_kept_verbatim() {
        let list = parse(
            "- job_name: extra\n  static_configs: []\n  params: {}\n  labels: {stream: }\n  ec2_sd_configs:\n  - port: 9100\n    refresh_interval: 30s\n  ratio: 0.5\n  honor_labels: yes\n  mode: 0755\n",
            "f",
            &"s",
        )
        .expect("a list");
        assert_eq!(
            Value::Array(list.clone()),
            json!([{
                "job_name": "extra",
                "static_configs": [],
                "params": {},
                "labels": {"stream": null},
                "ec2_sd_configs": [{"port": 9100, "refresh_interval": "30s"}],
                "ratio": 0.5,
                "honor_labels": true,
                "mode": 493,
            }])
        );
        assert!(list[0]["ec2_sd_configs"][0]["port"].is_u64());
        // Key order is the user's.
        let keys: Vec<&String> = list[0].as_object().expect("map").keys().collect();
        assert_eq!(keys[0], "job_name");
        assert_eq!(keys[1], "static_configs");
        assert!(parse("", "f", &"s").expect("empty").is_empty());
        assert_eq!(
            parse(r#"[{"job_name": "j"}]"#, "f", &"s").expect("json is yaml"),
            vec![json!({"job_name": "j"})]
        );
    }

    #[test]
    fn a_value_that_is_not_a_list_of_jobs_is_an_error() {
        for (text, needle) in [
            ("job_name: x", "not a map"),
            ("- a\n- b", "item [0]"),
            ("[unclosed", "not valid YAML"),
            ("- static_configs: []", "no job_name"),
            ("- job_name: ''", "no job_name"),
        ] {
            let err = parse(
                text,
                "spec.additionalScrapeConfigs",
                &"key \"k\" of Secret ns/s",
            )
            .expect_err(text);
            assert!(
                err.message.starts_with("key \"k\" of Secret ns/s: "),
                "{}",
                err.message
            );
            assert_eq!(err.field, "spec.additionalScrapeConfigs");
            assert!(err.message.contains(needle), "{text}: {}", err.message);
        }
    }
}
