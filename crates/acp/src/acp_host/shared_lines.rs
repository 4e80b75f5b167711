//! The agent's stdin and stdout as lines that outlive one connection of the crate: the host
//! offers ACP v2 on a connection of v2, and when the agent answers 1 it goes on, over the same
//! pipes of the same process, with today's v1 connection, which repeats `initialize` in v1's
//! words (ACP lets a client repeat it before any other request; the latest one counts). Each
//! connection gets a view of both ends; the pipes close when the last view and the handle are
//! dropped, which ends the ACP stdio transport (docs/ACP.md, "The agent's process").

use std::io;
use std::pin::Pin;
use std::sync::Arc;

use futures::{SinkExt, StreamExt};
use tokio::sync::Mutex;

type Outgoing = Pin<Box<dyn futures::Sink<String, Error = io::Error> + Send>>;
type Incoming = Pin<Box<dyn futures::Stream<Item = io::Result<String>> + Send>>;

/// Both ends, shared by the connections made over them one after the other.
#[derive(Clone)]
pub(crate) struct SharedLines {
    outgoing: Arc<Mutex<Outgoing>>,
    incoming: Arc<Mutex<Incoming>>,
}

impl SharedLines {
    pub(crate) fn new(outgoing: Outgoing, incoming: Incoming) -> Self {
        Self {
            outgoing: Arc::new(Mutex::new(outgoing)),
            incoming: Arc::new(Mutex::new(incoming)),
        }
    }

    /// A transport for one connection. A line read by a connection that then ends is its
    /// own; the next connection reads from the line after it (an agent says nothing
    /// unasked between `initialize`'s answer and the next request).
    pub(crate) fn transport(
        &self,
    ) -> agent_client_protocol::Lines<
        impl futures::Sink<String, Error = io::Error> + Send + 'static,
        impl futures::Stream<Item = io::Result<String>> + Send + 'static,
    > {
        let sink = futures::sink::unfold(
            Arc::clone(&self.outgoing),
            |outgoing, line: String| async move {
                outgoing.lock().await.send(line).await?;
                Ok::<_, io::Error>(outgoing)
            },
        );
        let stream = futures::stream::unfold(Arc::clone(&self.incoming), |incoming| async move {
            let next = incoming.lock().await.next().await?;
            Some((next, incoming))
        });
        agent_client_protocol::Lines::new(sink, stream)
    }
}
