//! Logs on stderr: `--log.level` as upstream (debug, info, warn, error) and `--log.format`
//! logfmt (upstream's only format) or json.

use std::fmt;
use std::str::FromStr;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

#[derive(Debug, thiserror::Error)]
pub enum LoggingError {
    #[error("invalid log level {0:?}: expected one of debug, info, warn, error")]
    Level(String),
    #[error("invalid log format {0:?}: expected logfmt or json")]
    Format(String),
    #[error("installing the logger: {0}")]
    Install(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum LogLevel {
    Debug,
    #[default]
    Info,
    Warn,
    Error,
}

impl FromStr for LogLevel {
    type Err = LoggingError;

    fn from_str(value: &str) -> Result<Self, LoggingError> {
        match value {
            "debug" => Ok(LogLevel::Debug),
            "info" => Ok(LogLevel::Info),
            "warn" => Ok(LogLevel::Warn),
            "error" => Ok(LogLevel::Error),
            _ => Err(LoggingError::Level(value.to_string())),
        }
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Warn => "warn",
            LogLevel::Error => "error",
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    #[default]
    Logfmt,
    Json,
}

impl FromStr for LogFormat {
    type Err = LoggingError;

    fn from_str(value: &str) -> Result<Self, LoggingError> {
        match value {
            "logfmt" => Ok(LogFormat::Logfmt),
            "json" => Ok(LogFormat::Json),
            _ => Err(LoggingError::Format(value.to_string())),
        }
    }
}

impl fmt::Display for LogFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LogFormat::Logfmt => "logfmt",
            LogFormat::Json => "json",
        })
    }
}

/// Crates whose debug logs describe the operator's own decisions; at `debug` the HTTP, TLS
/// and connection-pool crates underneath stay at `info`, or every request would be logged
/// several times over.
const OPERATOR_TARGETS: [&str; 6] = [
    "agent_operator",
    "controller",
    "render",
    "kube_runtime",
    "kube_lease_manager",
    "testkube",
];

/// The filter for `level`, as `EnvFilter` directives.
pub fn filter_directives(level: LogLevel) -> String {
    if level > LogLevel::Debug {
        return level.to_string();
    }
    let mut directives = vec!["info".to_string()];
    directives.extend(OPERATOR_TARGETS.iter().map(|t| format!("{t}={level}")));
    directives.join(",")
}

/// Installs the process-wide logger; call once, first thing in `main`. `RUST_LOG`, when set,
/// replaces the filter `level` gives (for a developer chasing one module).
pub fn init(level: LogLevel, format: LogFormat) -> Result<(), LoggingError> {
    let directives = std::env::var("RUST_LOG")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| filter_directives(level));
    let filter = EnvFilter::try_new(&directives)
        .map_err(|e| LoggingError::Install(format!("log filter {directives:?}: {e}")))?;
    let registry = tracing_subscriber::registry().with(filter);
    let installed = match format {
        LogFormat::Logfmt => registry
            .with(
                tracing_logfmt::builder()
                    .layer()
                    .with_writer(std::io::stderr),
            )
            .try_init(),
        LogFormat::Json => registry
            .with(
                tracing_subscriber::fmt::layer()
                    .json()
                    .flatten_event(true)
                    .with_current_span(true)
                    .with_span_list(false)
                    .with_writer(std::io::stderr),
            )
            .try_init(),
    };
    installed.map_err(|e| LoggingError::Install(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_formats_are_upstreams_words_and_others_are_refused() {
        for word in ["debug", "info", "warn", "error"] {
            assert_eq!(word.parse::<LogLevel>().unwrap().to_string(), word);
        }
        assert_eq!(
            "verbose".parse::<LogLevel>().unwrap_err().to_string(),
            "invalid log level \"verbose\": expected one of debug, info, warn, error"
        );
        assert_eq!("json".parse::<LogFormat>().unwrap(), LogFormat::Json);
        assert_eq!(
            "text".parse::<LogFormat>().unwrap_err().to_string(),
            "invalid log format \"text\": expected logfmt or json"
        );
    }

    #[test]
    fn debug_keeps_the_transport_crates_at_info() {
        assert_eq!(filter_directives(LogLevel::Warn), "warn");
        let debug = filter_directives(LogLevel::Debug);
        assert!(debug.starts_with("info,"));
        assert!(debug.contains("controller=debug"));
        assert!(EnvFilter::try_new(&debug).is_ok());
    }
}
