//! The packaged registry: registration rules, the configuration entries of packaged servers,
//! and facade call mapping.
//!
//! Rules: registering an identical descriptor again is a no-op; a different descriptor under a
//! taken name is an error; a facade's server must be registered first; a facade call must
//! validate against its operation's closed schema and maps to exactly one `(server, tool,
//! arguments)`. Registration is in-process only: nothing here reads a file.

use std::path::Path;

use serde_json::Value;

use super::demo_server;
use super::descriptor::{PackagedDescriptor, Presence, unavailable_entry};
use super::facade::{FacadeCall, ToolFacade, check_arguments, is_valid_identifier};
use crate::mcp::config::{ConfigSet, ServerEntry};

/// Why a registration or a facade call was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PackagedError {
    /// A server or facade name that configuration could not use.
    #[error(
        "`{name}` is not a valid {kind} name: 1–64 characters of [A-Za-z0-9._-], starting with a letter or digit"
    )]
    InvalidName {
        /// `server` or `facade`.
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// A server descriptor that cannot run as given.
    #[error("packaged server `{name}`: {reason}")]
    InvalidServer {
        /// The server.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// The name is taken by a different descriptor.
    #[error("a different packaged {kind} named `{name}` is already registered")]
    Conflict {
        /// `server` or `facade`.
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// A facade registered before (or without) its server.
    #[error("facade `{facade}` needs packaged server `{server}`, which is not registered")]
    UnknownServer {
        /// The facade.
        facade: String,
        /// The server it names.
        server: String,
    },
    /// A malformed facade (operations, fields, schemas).
    #[error("facade `{facade}`: {reason}")]
    InvalidFacade {
        /// The facade.
        facade: String,
        /// What is wrong.
        reason: String,
    },
    /// A call to a facade that is not registered.
    #[error("no facade named `{0}`")]
    UnknownFacade(String),
    /// A call to an operation the facade does not have.
    #[error("facade `{facade}` has no operation `{operation}`")]
    UnknownOperation {
        /// The facade.
        facade: String,
        /// The operation asked for.
        operation: String,
    },
    /// Arguments that do not match the operation's schema.
    #[error("facade `{facade}` operation `{operation}`: invalid arguments: {}", errors.join("; "))]
    InvalidArguments {
        /// The facade.
        facade: String,
        /// The operation.
        operation: String,
        /// Each violation as `path: message`.
        errors: Vec<String>,
    },
}

#[derive(Debug)]
struct RegisteredServer {
    descriptor: PackagedDescriptor,
    presence: Presence,
}

#[derive(Debug)]
struct RegisteredFacade {
    facade: ToolFacade,
    /// One compiled schema per operation, in operation order.
    validators: Vec<jsonschema::Validator>,
}

/// Every packaged server and facade of this process.
#[derive(Debug, Default)]
pub struct PackagedRegistry {
    servers: Vec<RegisteredServer>,
    facades: Vec<RegisteredFacade>,
}

impl PackagedRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The built-in servers and facades: `demo` (present with `--demo` or when nothing is
    /// configured).
    pub fn builtin() -> Result<Self, PackagedError> {
        let mut registry = Self::new();
        registry.register_server(demo_server(), Presence::Demo)?;
        Ok(registry)
    }

    /// Registers a server. Idempotent for an identical descriptor and presence; a different
    /// one under a taken name is [`PackagedError::Conflict`].
    pub fn register_server(
        &mut self,
        descriptor: impl Into<PackagedDescriptor>,
        presence: Presence,
    ) -> Result<(), PackagedError> {
        let descriptor = descriptor.into();
        let name = descriptor.name();
        if !is_valid_identifier(name) {
            return Err(PackagedError::InvalidName {
                kind: "server",
                name: name.to_owned(),
            });
        }
        if let Some(reason) = descriptor.problem() {
            return Err(PackagedError::InvalidServer {
                name: name.to_owned(),
                reason,
            });
        }
        if let Some(existing) = self.servers.iter().find(|s| s.descriptor.name() == name) {
            return if existing.descriptor == descriptor && existing.presence == presence {
                Ok(())
            } else {
                Err(PackagedError::Conflict {
                    kind: "server",
                    name: name.to_owned(),
                })
            };
        }
        self.servers.push(RegisteredServer {
            descriptor,
            presence,
        });
        Ok(())
    }

    /// Registers a facade over an already registered server, compiling each operation's closed
    /// schema. Idempotent for an identical facade; a different one under a taken name is
    /// [`PackagedError::Conflict`].
    pub fn register_facade(&mut self, facade: ToolFacade) -> Result<(), PackagedError> {
        if !is_valid_identifier(&facade.name) {
            return Err(PackagedError::InvalidName {
                kind: "facade",
                name: facade.name,
            });
        }
        if self.server(&facade.server).is_none() {
            return Err(PackagedError::UnknownServer {
                facade: facade.name,
                server: facade.server,
            });
        }
        if let Some(existing) = self.facades.iter().find(|f| f.facade.name == facade.name) {
            return if existing.facade == facade {
                Ok(())
            } else {
                Err(PackagedError::Conflict {
                    kind: "facade",
                    name: facade.name,
                })
            };
        }
        let invalid = |reason: String| PackagedError::InvalidFacade {
            facade: facade.name.clone(),
            reason,
        };
        if facade.operations.is_empty() {
            return Err(invalid("it has no operations".into()));
        }
        let mut validators = Vec::with_capacity(facade.operations.len());
        for (i, op) in facade.operations.iter().enumerate() {
            if let Some(reason) = op.problem() {
                return Err(invalid(reason));
            }
            if facade.operations[..i].iter().any(|o| o.name == op.name) {
                return Err(invalid(format!("operation `{}` is defined twice", op.name)));
            }
            let validator = jsonschema::draft202012::new(&op.input_schema()).map_err(|e| {
                invalid(format!(
                    "operation `{}`: its schema is not usable: {e}",
                    op.name
                ))
            })?;
            validators.push(validator);
        }
        self.facades.push(RegisteredFacade { facade, validators });
        Ok(())
    }

    /// The registered server named `name`.
    pub fn server(&self, name: &str) -> Option<&PackagedDescriptor> {
        self.servers
            .iter()
            .find(|s| s.descriptor.name() == name)
            .map(|s| &s.descriptor)
    }

    /// Every registered server with its presence, in registration order.
    pub fn servers(&self) -> impl Iterator<Item = (&PackagedDescriptor, Presence)> {
        self.servers.iter().map(|s| (&s.descriptor, s.presence))
    }

    /// The registered facade named `name`.
    pub fn facade(&self, name: &str) -> Option<&ToolFacade> {
        self.facades
            .iter()
            .find(|f| f.facade.name == name)
            .map(|f| &f.facade)
    }

    /// Every registered facade, in registration order.
    pub fn facades(&self) -> impl Iterator<Item = &ToolFacade> {
        self.facades.iter().map(|f| &f.facade)
    }

    /// Validates a facade call and maps it to exactly the facade's server, the operation's
    /// remote tool and the caller's (valid) arguments. `arguments` must be an object.
    pub fn call(
        &self,
        facade: &str,
        operation: &str,
        arguments: &Value,
    ) -> Result<FacadeCall, PackagedError> {
        let registered = self
            .facades
            .iter()
            .find(|f| f.facade.name == facade)
            .ok_or_else(|| PackagedError::UnknownFacade(facade.to_owned()))?;
        let Some((op, validator)) = registered
            .facade
            .operations
            .iter()
            .zip(&registered.validators)
            .find(|(op, _)| op.name == operation)
        else {
            return Err(PackagedError::UnknownOperation {
                facade: facade.to_owned(),
                operation: operation.to_owned(),
            });
        };
        let errors = check_arguments(validator, arguments);
        let Value::Object(arguments) = arguments else {
            // The closed schema says `type: object`, so this is unreachable in practice; fail
            // closed rather than trust that.
            return Err(PackagedError::InvalidArguments {
                facade: facade.to_owned(),
                operation: operation.to_owned(),
                errors: if errors.is_empty() {
                    vec!["/: arguments must be an object".into()]
                } else {
                    errors
                },
            });
        };
        if !errors.is_empty() {
            return Err(PackagedError::InvalidArguments {
                facade: facade.to_owned(),
                operation: operation.to_owned(),
                errors,
            });
        }
        Ok(FacadeCall {
            server: registered.facade.server.clone(),
            remote_tool: op.remote_tool.clone(),
            arguments: arguments.clone(),
        })
    }

    /// The configuration entries of the packaged servers that are present: every
    /// [`Presence::Always`] server, and the [`Presence::Demo`] ones when `include_demo`.
    /// `self_exe` is the running mcpdeck binary; when it is unknown, self-servers become
    /// invalid entries that say why.
    pub fn config_entries(
        &self,
        include_demo: bool,
        self_exe: Result<&Path, &str>,
    ) -> Vec<ServerEntry> {
        self.servers
            .iter()
            .filter(|s| include_demo || s.presence == Presence::Always)
            .map(|s| {
                let name = s.descriptor.name();
                let resolved = match (&s.descriptor, self_exe) {
                    (PackagedDescriptor::SelfServer(_), Err(problem)) => Err(format!(
                        "cannot find the running mcpdeck executable: {problem}"
                    )),
                    (_, exe) => s.descriptor.resolve(exe.unwrap_or(Path::new(""))),
                };
                match resolved {
                    Ok(command) => command.entry(name),
                    Err(message) => unavailable_entry(name, &message),
                }
            })
            .collect()
    }

    /// Layers the present packaged servers on top of `config` (they win name collisions).
    /// The demo server is present when `demo_flag` (`--demo`) is set or when no configuration
    /// file defines any server.
    pub fn layer_onto(&self, config: ConfigSet, demo_flag: bool) -> ConfigSet {
        let include_demo = demo_flag || !config.defines_any_server();
        let exe = std::env::current_exe().map_err(|e| e.to_string());
        let self_exe = exe.as_deref().map_err(String::as_str);
        let entries = self.config_entries(include_demo, self_exe);
        config.with_packaged(entries)
    }
}
