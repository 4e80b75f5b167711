//! The one place an exchange is watched: every exchange the engine makes, with a Collie agent
//! or a DSH bridge, goes from here to the recording (`--record`, docs/RECORDING.md) and to the
//! wire inspector. Sessions, the intent runner and the bridge client each hold a clone.

use std::time::Instant;

use tokio::sync::mpsc::UnboundedSender;

use super::record::Recorder;
use super::{ExchangeRecord, FromEngine};
use crate::transport::{Reply, Request, TransportError};

/// Records each exchange and tells the inspector of it.
#[derive(Clone)]
pub(crate) struct Observer {
    recorder: Recorder,
    updates: UnboundedSender<FromEngine>,
}

impl Observer {
    pub(crate) fn new(recorder: Recorder, updates: UnboundedSender<FromEngine>) -> Self {
        Self { recorder, updates }
    }

    /// One exchange with a Collie agent that began at `started`; `request_id` names the
    /// intent it carried, if any.
    pub(crate) fn collie(
        &self,
        agent: &str,
        request: &Request,
        request_id: Option<&str>,
        result: Result<&Reply, &TransportError>,
        started: Instant,
    ) {
        self.recorder.exchange(agent, request, result, started);
        let record = ExchangeRecord::new(
            agent,
            request,
            request_id,
            result,
            started.elapsed().as_millis(),
        );
        let _ = self.updates.send(FromEngine::Exchange(record));
    }

    /// One exchange with a DSH bridge that began at `started`: the method, the path with its
    /// query and the body sent, then the reply's status and body, or why none came.
    pub(crate) fn bridge(
        &self,
        agent: &str,
        (method, path, body): (&'static str, &str, Option<&[u8]>),
        reply: Result<(u16, &[u8]), String>,
        started: Instant,
    ) {
        self.recorder
            .bridge_exchange(agent, (method, path, body), reply.clone(), started);
        let record = ExchangeRecord::from_parts(
            agent,
            method,
            path.to_string(),
            body,
            reply,
            started.elapsed().as_millis(),
        );
        let _ = self.updates.send(FromEngine::Exchange(record));
    }
}
