//! Server-side printing (`meta.k8s.io/v1` Table), which `kubectl get` asks for. Columns are Name,
//! the custom resource's `additionalPrinterColumns` (simple `.a.b.c` JSON paths), and Age.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::resources::ResourceInfo;

fn column(name: &str, column_type: &str, format: &str, description: &str) -> Value {
    json!({"name": name, "type": column_type, "format": format, "description": description, "priority": 0})
}

/// Age the way kubectl prints it: `42s`, `7m`, `3h`, `12d`.
fn age(created: Option<&str>) -> String {
    let Some(created) = created.and_then(|text| text.parse::<jiff::Timestamp>().ok()) else {
        return "<unknown>".into();
    };
    let seconds = (jiff::Timestamp::now().as_second() - created.as_second()).max(0);
    match seconds {
        0..120 => format!("{seconds}s"),
        120..7200 => format!("{}m", seconds / 60),
        7200..172_800 => format!("{}h", seconds / 3600),
        _ => format!("{}d", seconds / 86_400),
    }
}

fn lookup<'a>(object: &'a Value, json_path: &str) -> &'a Value {
    json_path
        .trim_start_matches('.')
        .split('.')
        .filter(|segment| !segment.is_empty())
        .fold(object, |current, segment| &current[segment])
}

pub fn table(info: &ResourceInfo, objects: &[Arc<Value>], list_metadata: Option<Value>) -> Value {
    let mut columns = vec![column(
        "Name",
        "string",
        "name",
        "Name must be unique within a namespace.",
    )];
    for printer in &info.printer_columns {
        columns.push(column(&printer.name, &printer.column_type, "", ""));
    }
    columns.push(column("Age", "string", "", "CreationTimestamp is a timestamp representing the server time when this object was created."));
    let rows: Vec<Value> = objects
        .iter()
        .map(|object| {
            let mut cells = vec![object["metadata"]["name"].clone()];
            for printer in &info.printer_columns {
                let value = lookup(object, &printer.json_path);
                cells.push(if value.is_null() {
                    json!("")
                } else {
                    value.clone()
                });
            }
            cells.push(json!(age(object["metadata"]["creationTimestamp"].as_str())));
            json!({"cells": cells, "object": **object})
        })
        .collect();
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": list_metadata.unwrap_or_else(|| json!({})),
        "columnDefinitions": columns,
        "rows": rows,
    })
}
