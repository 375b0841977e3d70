//! How a response shows objects, chosen by the request's `Accept` header: whole, as a
//! `meta.k8s.io/v1` Table (what `kubectl get` asks for), or metadata-only as
//! `PartialObjectMetadata` (what metadata-only lists and watches ask for, so a client
//! watching Secrets never receives their values).

use serde_json::{Value, json};

use crate::error::ApiError;

const META_API_VERSION: &str = "meta.k8s.io/v1";
const PARTIAL: &str = "PartialObjectMetadata";
const PARTIAL_LIST: &str = "PartialObjectMetadataList";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presentation {
    Whole,
    Table,
    /// `as=PartialObjectMetadata` (`list: false`) or `as=PartialObjectMetadataList`.
    Metadata {
        list: bool,
    },
}

impl Presentation {
    /// From the first media type of `accept`, the one a client prefers.
    pub fn from_accept(accept: &str) -> Presentation {
        let first = accept.split(',').next().unwrap_or_default();
        let as_kind = first
            .split(';')
            .filter_map(|parameter| parameter.trim().strip_prefix("as="))
            .next();
        match as_kind {
            Some("Table") => Presentation::Table,
            Some(PARTIAL) => Presentation::Metadata { list: false },
            Some(PARTIAL_LIST) => Presentation::Metadata { list: true },
            _ => Presentation::Whole,
        }
    }

    /// Refuses the media type a real API server refuses for this verb: a list answers only
    /// `PartialObjectMetadataList`, a get or a watch only `PartialObjectMetadata`.
    pub fn check(self, verb: &str) -> Result<Self, ApiError> {
        let wants_list = verb == "list";
        match self {
            Presentation::Metadata { list } if list != wants_list => Err(ApiError::new(
                406,
                "NotAcceptable",
                format!(
                    "only the following media types are accepted: application/json;as={};g=meta.k8s.io;v=v1",
                    if wants_list { PARTIAL_LIST } else { PARTIAL }
                ),
            )),
            other => Ok(other),
        }
    }
}

/// `object` as `PartialObjectMetadata`: its metadata only.
pub fn partial(object: &Value) -> Value {
    json!({"kind": PARTIAL, "apiVersion": META_API_VERSION, "metadata": object["metadata"]})
}

/// The `(kind, apiVersion)` of a metadata-only list.
pub fn partial_list_type() -> (&'static str, &'static str) {
    (PARTIAL_LIST, META_API_VERSION)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_media_type_decides() {
        let table = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
        assert_eq!(Presentation::from_accept(table), Presentation::Table);
        assert_eq!(
            Presentation::from_accept(
                "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
            ),
            Presentation::Metadata { list: true }
        );
        assert_eq!(
            Presentation::from_accept(
                "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
            ),
            Presentation::Metadata { list: false }
        );
        assert_eq!(
            Presentation::from_accept("application/json, application/json;as=Table"),
            Presentation::Whole
        );
    }

    #[test]
    fn a_list_refuses_the_single_object_media_type() {
        let single = Presentation::Metadata { list: false };
        assert!(single.check("get").is_ok());
        assert!(single.check("watch").is_ok());
        assert_eq!(single.check("list").unwrap_err().code, 406);
        assert_eq!(
            Presentation::Metadata { list: true }
                .check("get")
                .unwrap_err()
                .code,
            406
        );
    }
}
