//! Why a proxy request is invalid: one variant per kind of mistake, each
//! message naming the fields involved and, where one exists, the nearest valid name. Values
//! quoted from the request are sanitised and capped by the parser before they get here.

use std::fmt;

use super::request::{KNOWN_FIELDS, OPERATION_VALUES};

/// A field the request schema does not know, with the nearest known field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownField {
    /// The field as given (sanitised, capped).
    pub name: String,
    /// The known field it most likely meant.
    pub suggestion: Option<&'static str>,
}

/// Why a request is invalid. Every message names the fields involved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestError {
    /// The request is not a JSON object.
    NotAnObject {
        /// The JSON type that was given instead.
        found: &'static str,
    },
    /// Fields outside the request schema.
    UnknownFields(Vec<UnknownField>),
    /// A field has the wrong JSON type.
    WrongType {
        /// The field.
        field: &'static str,
        /// What the field must be.
        expected: &'static str,
        /// The JSON type given.
        found: &'static str,
    },
    /// Fields that select different request shapes were combined.
    Conflict(Vec<&'static str>),
    /// A field that only belongs to another shape.
    Misplaced {
        /// The field given.
        field: &'static str,
        /// What it belongs with.
        belongs_with: &'static str,
    },
    /// A field the chosen shape requires is absent.
    Missing {
        /// The required field.
        field: &'static str,
        /// The shape that requires it.
        operation: &'static str,
    },
    /// A string field is empty.
    Empty {
        /// The field.
        field: &'static str,
    },
    /// A string field is longer than allowed.
    TooLong {
        /// The field.
        field: &'static str,
        /// The bound, in bytes.
        max: usize,
    },
    /// `operation` names no operation.
    UnknownOperation {
        /// The value as given (sanitised, capped).
        value: String,
        /// The nearest valid operation.
        suggestion: Option<&'static str>,
    },
    /// `operation` names an operation that is requested with its own field.
    OperationViaField {
        /// The operation value given.
        operation: &'static str,
        /// The field that requests it.
        field: &'static str,
    },
    /// `resource` is not an `mcp-resource-` reference.
    BadReference,
    /// `server` names no configured server.
    UnknownServer {
        /// The name as given (sanitised, capped).
        given: String,
        /// The nearest configured name.
        suggestion: Option<String>,
        /// Every configured name (sanitised), sorted.
        configured: Vec<String>,
    },
    /// A prompt argument's value is not a string.
    ArgumentNotString {
        /// The argument's name (sanitised, capped).
        name: String,
        /// The JSON type given.
        found: &'static str,
    },
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotAnObject { found } => {
                write!(f, "the request must be a JSON object, not {found}")
            }
            Self::UnknownFields(fields) => {
                let mut sep = "";
                for field in fields {
                    write!(f, "{sep}unknown field `{}`", field.name)?;
                    if let Some(suggestion) = field.suggestion {
                        write!(f, " (did you mean `{suggestion}`?)")?;
                    }
                    sep = "; ";
                }
                write!(f, "; known fields: {}", KNOWN_FIELDS.join(", "))
            }
            Self::WrongType {
                field,
                expected,
                found,
            } => write!(f, "`{field}` must be {expected}, not {found}"),
            Self::Conflict(fields) => {
                let names: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
                write!(
                    f,
                    "{} cannot be combined: a request has exactly one shape",
                    names.join(" and ")
                )
            }
            Self::Misplaced {
                field,
                belongs_with,
            } => write!(f, "`{field}` is only valid with {belongs_with}"),
            Self::Missing { field, operation } => {
                write!(f, "`{field}` is required for {operation}")
            }
            Self::Empty { field } => write!(f, "`{field}` must not be empty"),
            Self::TooLong { field, max } => write!(f, "`{field}` is longer than {max} bytes"),
            Self::UnknownOperation { value, suggestion } => {
                write!(f, "unknown `operation` `{value}`")?;
                if let Some(suggestion) = suggestion {
                    write!(f, " (did you mean `{suggestion}`?)")?;
                }
                write!(f, "; valid: {}", OPERATION_VALUES.join(", "))
            }
            Self::OperationViaField { operation, field } => write!(
                f,
                "`operation` `{operation}` is requested with the `{field}` field instead"
            ),
            Self::BadReference => f.write_str(
                "`resource` must be a reference `mcp-resource-` + 32 hex characters from \
                 resources.list",
            ),
            Self::UnknownServer {
                given,
                suggestion,
                configured,
            } => {
                write!(f, "no configured server is named `{given}`")?;
                if let Some(suggestion) = suggestion {
                    write!(f, " (did you mean `{suggestion}`?)")?;
                }
                if configured.is_empty() {
                    f.write_str("; no servers are configured")
                } else {
                    write!(f, "; configured: {}", configured.join(", "))
                }
            }
            Self::ArgumentNotString { name, found } => {
                write!(f, "`arguments.{name}` must be a string, not {found}")
            }
        }
    }
}

impl std::error::Error for RequestError {}
