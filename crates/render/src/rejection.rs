//! Objects that could not be rendered, with the reason. The controller turns these into
//! status conditions and Warning Events; `render` prints them on stderr.

use std::fmt;

use crate::input_ref::InputRef;

/// One object left out of the rendered output (or one part of it dropped), and why.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rejection {
    /// The object at fault.
    pub object: InputRef,
    /// The JSON path of the offending field, e.g. `spec.endpoints[0].basicAuth.password`.
    pub field: Option<String>,
    pub message: String,
}

impl Rejection {
    pub fn new(
        object: InputRef,
        field: impl Into<Option<String>>,
        message: impl Into<String>,
    ) -> Self {
        Rejection {
            object,
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) => write!(f, "{}: {}: {}", self.object, field, self.message),
            None => write!(f, "{}: {}", self.object, self.message),
        }
    }
}
