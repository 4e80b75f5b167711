//! The answer to a request an agent made, on the connection it came over. The host answers in
//! ACP v1's types; a request that came over ACP v2 gets the same answer in v2's type, which
//! has the same shape on the wire for a permission (`outcome`) and an elicitation (`action`,
//! `content`), so the host's answers are one code for both versions (docs/ACP.md, "ACP v1 and
//! v2").

use agent_client_protocol::v1::schema::{CreateElicitationResponse, RequestPermissionResponse};
use agent_client_protocol::{Error, JsonRpcResponse};

use agent_client_protocol::v2::schema as v2;

/// A responder of either version, answered with v1's `T`.
pub(crate) enum Reply<T: JsonRpcResponse, U: JsonRpcResponse> {
    V1(agent_client_protocol::v1::Responder<T>),
    V2(agent_client_protocol::v2::Responder<U>),
}

/// The answer to a `session/request_permission`.
pub(crate) type PermissionReply = Reply<RequestPermissionResponse, v2::RequestPermissionResponse>;
/// The answer to an `elicitation/create`.
pub(crate) type ElicitationReply = Reply<CreateElicitationResponse, v2::CreateElicitationResponse>;

impl<T: JsonRpcResponse, U: JsonRpcResponse> Reply<T, U> {
    pub(crate) fn respond(self, answer: T) -> Result<(), Error> {
        match self {
            Reply::V1(responder) => responder.respond(answer),
            Reply::V2(responder) => {
                let method = responder.method().to_string();
                let answer = U::from_json(&method, answer.into_json(&method)?)?;
                responder.respond(answer)
            }
        }
    }
}

impl<T: JsonRpcResponse, U: JsonRpcResponse> std::fmt::Debug for Reply<T, U> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reply::V1(_) => f.write_str("Reply(v1)"),
            Reply::V2(_) => f.write_str("Reply(v2)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use agent_client_protocol::v1::schema::{
        ElicitationAction, RequestPermissionOutcome, SelectedPermissionOutcome,
    };

    use super::*;

    /// What the host answers in v1's words reads as v2's answer, the same on the wire.
    #[test]
    fn the_v1_answers_read_as_v2s() {
        let allow = RequestPermissionResponse::new(RequestPermissionOutcome::Selected(
            SelectedPermissionOutcome::new("allow"),
        ));
        let wire = serde_json::to_value(&allow).expect("json");
        let v2: v2::RequestPermissionResponse =
            serde_json::from_value(wire.clone()).expect("a v2 answer");
        assert_eq!(serde_json::to_value(v2).expect("json"), wire);
        let cancelled = RequestPermissionResponse::new(RequestPermissionOutcome::Cancelled);
        let wire = serde_json::to_value(&cancelled).expect("json");
        assert_eq!(
            wire,
            serde_json::json!({"outcome": {"outcome": "cancelled"}})
        );
        assert!(serde_json::from_value::<v2::RequestPermissionResponse>(wire).is_ok());
        let decline = CreateElicitationResponse::new(ElicitationAction::Decline);
        let wire = serde_json::to_value(&decline).expect("json");
        let v2: v2::CreateElicitationResponse = serde_json::from_value(wire.clone()).expect("v2");
        assert_eq!(serde_json::to_value(v2).expect("json"), wire);
    }
}
