//! What the phone and `watch --notify` both say of an agent in the rings' JSON: the flags a
//! shell gives `collie-phone answer` to reach it.

use crate::engine::AgentSpec;
use crate::model::rings::quoted;
use crate::transport::Endpoint;

/// `--socket PATH` for an agent on a socket of this machine, else `--agent NAME` (the config
/// file names it).
pub(crate) fn answer_dial(spec: &AgentSpec) -> String {
    match &spec.endpoint {
        Endpoint::Socket(socket) if spec.endpoint.through_ssh().is_none() => {
            format!("--socket {}", quoted(&socket.path.display().to_string()))
        }
        _ => format!("--agent {}", quoted(&spec.name)),
    }
}
