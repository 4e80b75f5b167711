//! The phone from a script: headless commands over the same engine as the screens, with the
//! same request-id receipts and outcomes, and exit codes that tell the outcomes apart
//! (`exit::TABLE`). docs/SCRIPTING.md describes each command.

mod abort;
mod answer;
mod args;
mod asks;
mod exit;
mod journal_hold;
mod link;
mod out;
mod receipt;
mod retry;
mod say;
mod send;
mod start;
mod watch;
mod watch_notify;

pub(crate) use args::quoted;

use std::process::ExitCode;

pub(crate) use abort::AbortArgs;
pub(crate) use answer::AnswerArgs;
pub(crate) use asks::AsksArgs;
pub(crate) use send::SendArgs;
pub(crate) use start::StartArgs;
pub(crate) use watch::WatchArgs;

pub(crate) fn asks(args: AsksArgs) -> anyhow::Result<ExitCode> {
    asks::run(args)
}

pub(crate) fn answer(args: AnswerArgs) -> anyhow::Result<ExitCode> {
    answer::run(args)
}

pub(crate) fn send(args: SendArgs) -> anyhow::Result<ExitCode> {
    send::run(args)
}

pub(crate) fn abort(args: AbortArgs) -> anyhow::Result<ExitCode> {
    abort::run(args)
}

pub(crate) fn start(args: StartArgs) -> anyhow::Result<ExitCode> {
    start::run(args)
}

pub(crate) fn watch(args: WatchArgs) -> anyhow::Result<ExitCode> {
    watch::run(args)
}
