//! The shared real control plane: `scripts/control-plane`, started once per test process.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};

use crate::Error;

/// What a test needs from the running control plane.
pub(crate) struct Shared {
    pub kubeconfig: PathBuf,
    pub operator_kubeconfig: PathBuf,
}

/// The script that runs the control plane; `AGENT_OPERATOR_CONTROL_PLANE` overrides it.
pub fn control_plane_script() -> PathBuf {
    match std::env::var_os("AGENT_OPERATOR_CONTROL_PLANE") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/control-plane"),
    }
}

/// The process and the pipe that keeps it alive. Never dropped: statics outlive `main`, and when
/// the process exits, however it exits, the kernel closes the pipe, on which the script
/// (`--stop-on-eof`) stops the control plane and removes its data and kubeconfigs.
struct Running {
    shared: Arc<Shared>,
    _child: Mutex<Child>,
    _lifeline: Mutex<ChildStdin>,
}

static CONTROL_PLANE: OnceLock<Result<Running, Arc<Error>>> = OnceLock::new();

/// Starts the control plane on the first call and waits until it serves; blocks.
pub(crate) fn shared() -> Result<Arc<Shared>, Error> {
    match CONTROL_PLANE.get_or_init(|| start().map_err(Arc::new)) {
        Ok(running) => Ok(running.shared.clone()),
        Err(error) => Err(Error::Shared(error.clone())),
    }
}

fn start() -> Result<Running, Error> {
    let script = control_plane_script();
    let kubeconfig = std::env::temp_dir().join(format!(
        "testenv-control-plane-{}.kubeconfig",
        std::process::id()
    ));
    let mut child = Command::new(&script)
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .arg("--stop-on-eof")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|source| Error::Spawn {
            script: script.clone(),
            source,
        })?;
    let (Some(lifeline), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        unreachable!("stdin and stdout were configured as pipes")
    };
    let mut line = String::new();
    let read = BufReader::new(stdout).read_line(&mut line);
    match read {
        Ok(0) => {
            drop(lifeline);
            let status = child.wait().map_err(|source| Error::ReadUrl {
                script: script.clone(),
                source,
            })?;
            return Err(Error::NotServing { script, status });
        }
        Ok(_) if line.starts_with("control-plane serving at https://") => {}
        Ok(_) => {
            return Err(Error::UnexpectedLine {
                script,
                line: line.trim_end().to_string(),
            });
        }
        Err(source) => return Err(Error::ReadUrl { script, source }),
    }
    let operator_kubeconfig = PathBuf::from(format!("{}.operator", kubeconfig.display()));
    Ok(Running {
        shared: Arc::new(Shared {
            kubeconfig,
            operator_kubeconfig,
        }),
        _child: Mutex::new(child),
        _lifeline: Mutex::new(lifeline),
    })
}
