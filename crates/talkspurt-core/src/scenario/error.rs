//! Scenario errors name the key path, the offending value and what is allowed.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Key path in the scenario, e.g. `calls[1].transport.variant`; empty for
    /// the document itself.
    pub path: String,
    /// The offending value as written (JSON rendering), or `(missing)`.
    pub value: String,
    /// What would have been accepted.
    pub allowed: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, value: impl Into<String>, allowed: impl Into<String>) -> Self {
        ScenarioError { path: path.into(), value: value.into(), allowed: allowed.into() }
    }
    pub fn missing(path: impl Into<String>, allowed: impl Into<String>) -> Self {
        Self::new(path, "(missing)", allowed)
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() { "(scenario)" } else { &self.path };
        write!(f, "{path}: got {}; expected {}", self.value, self.allowed)
    }
}

impl std::error::Error for ScenarioError {}
