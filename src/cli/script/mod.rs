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
mod send;
mod start;
mod watch;

use std::process::ExitCode;

pub use abort::AbortArgs;
pub use answer::AnswerArgs;
pub use args::ScriptArgs;
pub use asks::AsksArgs;
pub use send::SendArgs;
pub use start::StartArgs;
pub use watch::WatchArgs;

pub fn asks(args: AsksArgs) -> anyhow::Result<ExitCode> {
    asks::run(args)
}

pub fn answer(args: AnswerArgs) -> anyhow::Result<ExitCode> {
    answer::run(args)
}

pub fn send(args: SendArgs) -> anyhow::Result<ExitCode> {
    send::run(args)
}

pub fn abort(args: AbortArgs) -> anyhow::Result<ExitCode> {
    abort::run(args)
}

pub fn start(args: StartArgs) -> anyhow::Result<ExitCode> {
    start::run(args)
}

pub fn watch(args: WatchArgs) -> anyhow::Result<ExitCode> {
    watch::run(args)
}
