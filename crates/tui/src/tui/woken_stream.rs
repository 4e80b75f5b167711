//! A stream polled again only after it asked to be: the terminal's events as the runner reads
//! them, without the cost crossterm's `EventStream` charges for every look.
//!
//! `EventStream::poll_next` tries crossterm's global event-reader lock with a zero timeout.
//! While nothing is typed, the stream's own waker thread holds that lock, blocked in `poll(2)`,
//! so every look spins in parking_lot's `lock_slow` (a burst of `sched_yield`s) before it gives
//! up with `Pending`. The runner looks at the terminal after every engine update and in every
//! `select!` (docs/ENGINE.md, "Figures": 32 agents are 32 updates a second), and strace showed
//! 470 `sched_yield`s a second from it on an idle phone. A stream that said `Pending` has
//! nothing new until it wakes its task, so this wrapper lends it a waker of its own and asks
//! it again only once that waker fired (the `Stream` contract: a `Pending` stream wakes the
//! task when it may be ready). Nothing typed is read later for it: the wake is what the
//! runner would have waited for anyway.
//!
//! Written here, not taken from a crate: it is the one flag and waker the contract needs, and
//! `futures::task::AtomicWaker` does the part that is easy to get wrong.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use futures::Stream;
use futures::task::AtomicWaker;

/// Wraps a stream so that after a `Pending` it is polled again only once it woke.
pub struct WokenStream<S> {
    inner: S,
    wake: Arc<WakeFlag>,
    /// The waker lent to the inner stream: always the same one, so a stream that keeps the
    /// first waker it was given (crossterm's waker thread does) still reaches the task.
    waker: Waker,
}

/// Set when the inner stream woke its waker; the task to wake with it.
struct WakeFlag {
    woken: AtomicBool,
    task: AtomicWaker,
}

impl Wake for WakeFlag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::SeqCst);
        self.task.wake();
    }
}

impl<S> WokenStream<S> {
    pub fn new(inner: S) -> Self {
        let wake = Arc::new(WakeFlag {
            // The first poll always reaches the stream.
            woken: AtomicBool::new(true),
            task: AtomicWaker::new(),
        });
        let waker = Waker::from(Arc::clone(&wake));
        Self { inner, wake, waker }
    }
}

impl<S: Stream + Unpin> Stream for WokenStream<S> {
    type Item = S::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        // Registered before the flag is read, so a wake between the two is never lost.
        self.wake.task.register(cx.waker());
        if !self.wake.woken.swap(false, Ordering::SeqCst) {
            return Poll::Pending;
        }
        let this = &mut *self;
        let mut lent = Context::from_waker(&this.waker);
        match Pin::new(&mut this.inner).poll_next(&mut lent) {
            Poll::Ready(item) => {
                // A stream that gave an item may have the next one at once.
                this.wake.woken.store(true, Ordering::SeqCst);
                Poll::Ready(item)
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;
    use std::sync::Mutex;

    use futures::StreamExt;

    /// A stream fed by hand that counts how often it is polled and keeps the last waker.
    #[derive(Clone, Default)]
    struct Fed {
        shared: Arc<Mutex<FedState>>,
    }

    #[derive(Default)]
    struct FedState {
        items: VecDeque<u32>,
        polls: usize,
        waker: Option<Waker>,
    }

    impl Fed {
        fn push(&self, item: u32) {
            let mut state = self.shared.lock().expect("lock");
            state.items.push_back(item);
            if let Some(waker) = state.waker.take() {
                waker.wake();
            }
        }

        fn polls(&self) -> usize {
            self.shared.lock().expect("lock").polls
        }
    }

    impl Stream for Fed {
        type Item = u32;

        fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<u32>> {
            let mut state = self.shared.lock().expect("lock");
            state.polls += 1;
            match state.items.pop_front() {
                Some(item) => Poll::Ready(Some(item)),
                None => {
                    state.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        }
    }

    #[test]
    fn a_pending_stream_is_not_asked_again_until_it_wakes() {
        let fed = Fed::default();
        let mut stream = WokenStream::new(fed.clone());
        let mut cx = Context::from_waker(Waker::noop());
        assert_eq!(stream.poll_next_unpin(&mut cx), Poll::Pending);
        assert_eq!(fed.polls(), 1);
        for _ in 0..10 {
            assert_eq!(stream.poll_next_unpin(&mut cx), Poll::Pending);
        }
        assert_eq!(fed.polls(), 1, "looked at again without a wake");
        fed.push(7);
        assert_eq!(stream.poll_next_unpin(&mut cx), Poll::Ready(Some(7)));
        assert_eq!(fed.polls(), 2);
    }

    #[test]
    fn items_already_there_are_all_taken_one_after_another() {
        let fed = Fed::default();
        fed.push(1);
        fed.push(2);
        let mut stream = WokenStream::new(fed.clone());
        let mut cx = Context::from_waker(Waker::noop());
        assert_eq!(stream.poll_next_unpin(&mut cx), Poll::Ready(Some(1)));
        assert_eq!(stream.poll_next_unpin(&mut cx), Poll::Ready(Some(2)));
        assert_eq!(stream.poll_next_unpin(&mut cx), Poll::Pending);
    }

    #[tokio::test]
    async fn a_wake_from_another_thread_reaches_the_waiting_task() {
        let fed = Fed::default();
        let mut stream = WokenStream::new(fed.clone());
        assert_eq!(futures::poll!(stream.next()), Poll::Pending);
        let feeder = fed.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            feeder.push(42);
        });
        let item = tokio::time::timeout(std::time::Duration::from_secs(5), stream.next())
            .await
            .expect("woken within 5 s");
        assert_eq!(item, Some(42));
    }
}
