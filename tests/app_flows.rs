//! The whole phone against the real reference agent: the real `App` in the real `Tui` runner,
//! drawn into a `TestBackend`, driven by a scripted stream of key events, with the engine
//! dialing `collie-phone agent` over its private socket. Each flow asserts what the screen
//! shows after each step (issue 4: answer a permission from the inbox, a choice, send, abort,
//! run a starter, open history and reopen a conversation).

mod common;

use collie_phone::transport::Endpoint;
use common::phone::TestPhone;

const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;

/// The test phone on its own demo agent, which lives as long as it does.
struct Phone {
    phone: TestPhone,
    _agent: common::AgentProcess,
    _dir: tempfile::TempDir,
}

impl std::ops::Deref for Phone {
    type Target = TestPhone;
    fn deref(&self) -> &TestPhone {
        &self.phone
    }
}

impl std::ops::DerefMut for Phone {
    fn deref_mut(&mut self) -> &mut TestPhone {
        &mut self.phone
    }
}

impl Phone {
    /// The phone on a fresh demo agent (frozen clock), showing its inbox.
    async fn start() -> Self {
        let dir = common::temp_dir();
        let agent = common::socket_agent(dir.path(), &[]);
        let endpoint = Endpoint::socket(agent.socket_path());
        let phone = TestPhone::start("demo", endpoint, false, dir.path(), (WIDTH, HEIGHT), |_| {});
        let mut phone = Self {
            phone,
            _agent: agent,
            _dir: dir,
        };
        phone
            .until("the inbox", |s| s.contains("Needs your answer (4)"))
            .await;
        phone
    }

    /// Moves the home selection onto the inbox row whose text holds `words`, then opens it.
    async fn open_inbox_row(&mut self, words: &str) {
        self.press(&["g", "j"]).await;
        for _ in 0..10 {
            let screen = self.screen();
            if screen
                .lines()
                .any(|l| l.starts_with('›') && l.contains(words))
            {
                self.press(&["enter"]).await;
                return;
            }
            self.press(&["j"]).await;
        }
        panic!("no inbox row with {words}:\n{}", self.screen());
    }

    /// From home, opens the agent's workspaces and then the pane titled `title`.
    async fn open_pane(&mut self, title: &str) {
        self.press(&["g", "enter"]).await;
        self.until("the workspaces", |s| {
            s.contains("workspaces, tabs and panes")
        })
        .await;
        for _ in 0..30 {
            let screen = self.screen();
            if screen
                .lines()
                .any(|l| l.starts_with('›') && l.contains(title))
            {
                self.press(&["enter"]).await;
                let heading = format!("› {title}");
                self.until("the pane", |s| {
                    s.lines().nth(1).is_some_and(|l| l.contains(&heading))
                })
                .await;
                return;
            }
            self.press(&["j"]).await;
        }
        panic!("no pane {title}:\n{}", self.screen());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a4_answer_a_permission_from_the_inbox() {
    let mut phone = Phone::start().await;
    phone.open_inbox_row("rm -rf build/").await;
    phone
        .until("the permission card", |s| {
            s.contains("Tool  shell")
                && s.contains("command: rm -rf build/")
                && s.contains("Allow always")
        })
        .await;
    // y selects allow once; after the card was read, Enter answers it (issue 10).
    phone.press(&["y"]).await;
    phone.read_card().await;
    phone.press(&["enter"]).await;
    phone
        .until("the answer taken", |s| {
            s.contains("Answered.") && s.contains("Needs your answer (3)")
        })
        .await;
    assert!(!phone.screen().contains("rm -rf build/"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a15_answer_a_choice_by_its_number_then_enter() {
    let mut phone = Phone::start().await;
    phone.open_inbox_row("选择迁移策略").await;
    phone
        .until("the choice card", |s| {
            s.contains("订单表有 1200 万行") && s.contains("2  双写过渡")
        })
        .await;
    phone.press(&["2"]).await;
    phone.read_card().await;
    phone.press(&["enter"]).await;
    phone
        .until("the answer taken", |s| {
            s.contains("Answered.") && s.contains("Needs your answer (3)")
        })
        .await;
    // The pane's chat tells what was chosen (SPEC A4).
    phone.press(&["j", "j"]).await;
    phone.open_pane("重构订单服务").await;
    phone
        .until("the chat line", |s| {
            s.contains("Answered: 选择迁移策略 → 双写过渡")
        })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a16_send_text_to_a_pane() {
    let mut phone = Phone::start().await;
    phone.open_pane("Inbox screen").await;
    phone.press(&["i"]).await;
    phone.type_text("hello from the flow").await;
    phone
        .until("the typed words", |s| {
            s.contains("hello from the flow") && s.contains("19 B / 32 KiB")
        })
        .await;
    phone.press(&["enter"]).await;
    phone
        .until("the words in the chat", |s| {
            s.contains("you › hello from the flow")
                && s.contains("send: sent")
                && s.contains("0 B / 32 KiB")
        })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a16_abort_a_turn_after_a_confirm() {
    let mut phone = Phone::start().await;
    phone.open_pane("Store & restarts").await;
    phone
        .until("a running turn", |s| s.contains("running"))
        .await;
    phone.press(&["x"]).await;
    phone
        .until("the confirm", |s| {
            s.contains("Stop turn p-") && s.contains("y yes")
        })
        .await;
    phone.press(&["y"]).await;
    phone
        .until("the turn stopped", |s| {
            s.contains("Turn stopped from the phone.")
                && s.contains("aborted")
                && s.contains(": sent")
        })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a17_run_a_starter_and_land_in_its_pane() {
    let mut phone = Phone::start().await;
    phone.press(&["n"]).await;
    phone
        .until("the New page", |s| {
            s.contains("New — run a starter") && s.contains("Code review")
        })
        .await;
    phone.press(&["j", "enter"]).await;
    phone
        .until("the new pane", |s| {
            s.contains("Started from “Code review”.")
                && s.lines()
                    .nth(1)
                    .is_some_and(|l| l.contains("› Code review"))
        })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn w5_open_history_read_a_conversation_and_reopen_it() {
    let mut phone = Phone::start().await;
    phone.press(&["H"]).await;
    phone
        .until("the history", |s| {
            s.contains("History of demo — newest first") && s.contains("closed")
        })
        .await;
    phone.press(&["/"]).await;
    phone.type_text("closed").await;
    phone.press(&["enter"]).await;
    let title = phone
        .screen()
        .lines()
        .find(|l| l.starts_with('›'))
        .and_then(|l| l.split("items").nth(1))
        .map(|t| t.trim().to_string())
        .expect("a selected closed conversation");
    phone.press(&["enter"]).await;
    phone
        .until("its items, oldest first", |s| {
            s.contains("— oldest first") && s.contains("you › ")
        })
        .await;
    phone.press(&["o"]).await;
    phone
        .until("the reopened pane", |s| {
            s.contains("Conversation reopened.")
                && s.lines().nth(1).is_some_and(|l| l.contains(&title))
        })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_pages_load_as_the_selection_nears_the_end() {
    let mut phone = Phone::start().await;
    phone.press(&["H"]).await;
    phone
        .until("the first page", |s| s.contains("100+ conversations"))
        .await;
    // 170 conversations in the demo: the second page comes while scrolling, unasked.
    phone.press(&["G"]).await;
    phone
        .until("the second page", |s| s.contains("170 conversations"))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn w5_rename_a_tab_and_close_a_pane_after_a_confirm() {
    let mut phone = Phone::start().await;
    phone.press(&["g", "enter"]).await;
    phone
        .until("the workspaces", |s| {
            s.contains("workspaces, tabs and panes")
        })
        .await;
    phone.press(&["j", "r"]).await;
    phone
        .until("the rename prompt", |s| {
            s.contains("New title for the tab “Server”")
        })
        .await;
    phone.press(&["ctrl-u"]).await;
    phone.type_text("Backend").await;
    phone.press(&["enter"]).await;
    phone
        .until("the new title", |s| {
            s.contains("Renamed.")
                && s.lines()
                    .any(|l| l.starts_with("›") && l.contains("Backend"))
        })
        .await;
    for _ in 0..30 {
        if phone
            .screen()
            .lines()
            .any(|l| l.starts_with('›') && l.contains("Release notes"))
        {
            break;
        }
        phone.press(&["j"]).await;
    }
    phone.press(&["c"]).await;
    phone
        .until("the confirm", |s| {
            s.contains("Close the pane “Release notes”")
        })
        .await;
    phone.press(&["y"]).await;
    phone
        .until("the pane gone", |s| {
            s.contains("Closed the pane.") && !s.contains("Release notes")
        })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn belt_buttons_press_with_number_keys() {
    let mut phone = Phone::start().await;
    phone.open_pane("Inbox screen").await;
    phone.until("the belt", |s| s.contains("[F1 ")).await;
    phone.press(&["1"]).await;
    phone
        .until("the press taken", |s| {
            s.contains("button ") && s.contains(": sent")
        })
        .await;
}
