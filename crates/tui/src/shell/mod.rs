//! The shell, above the rooms (docs/ARCHITECTURE.md, "The rooms"): the router, `App { nav,
//! phone }` and `App::update(message) -> commands`, and the frame's root that draws the whole
//! screen (`frame`). No I/O here: the runner in `tui` feeds keys, mouse, paste, resizes,
//! focus, the engine's changes and clock ticks in, and carries the commands out.

mod chrome;
pub mod frame;
mod moves;
mod ringing;

use crossterm::event::{KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind};
use time::OffsetDateTime;

use crate::app::keymap::{Action, Context};
use crate::app::overlay::{self, Overlay};
use crate::app::phone::{Goto, Phone, Step};
use crate::app::{AppSetup, Command, Message, geometry, keymap, typing};
use crate::engine::{AgentChange, FromEngine, IntentRecord, ToEngine};
use crate::model::arming::{Arming, Why};
use crate::model::inbox;
use crate::model::inbox::AskKey;
use crate::model::news::Heard;
use crate::screens::room::{Heeded, Room};
use crate::screens::{
    CardScreen, ConversationScreen, DshFormScreen, ExchangeScreen, HistoryScreen, InspectorScreen,
    LayoutScreen, Navigation, NewScreen, PaneFocus, PaneScreen, Screen,
};

/// How long after the last key the person still counts as watching (SPEC S7, T8).
const WATCHING_AFTER_KEY_SECONDS: i64 = 60;

/// The phone: the stack of screens and everything else ([`Phone`], the part a screen may
/// touch). The app only routes: a key, a paste or the mouse goes to the overlay, the list
/// filter, or the room on top; the engine's news goes to the phone and the rooms it concerns;
/// then the steps the rooms asked of the stack are applied.
#[derive(Clone)]
pub struct App {
    nav: Navigation,
    phone: Phone,
    focused: bool,
    last_key: Option<OffsetDateTime>,
    watching: bool,
    /// What the last frame showed of each agent's last poll, for [`App::redraws`].
    drawn: Option<Drawn>,
    /// True when the person's last input was a paste without markers, so a next one with
    /// nothing between is its next piece.
    after_keys_paste: bool,
    /// A card closed by itself and the screen under it came back, or a move between panes
    /// landed on a pane (`moves`): since when, and the stack's move count then. While that
    /// screen stays on top, a key that acts on an agent waits the reading time (docs/KEYS.md,
    /// "Keys that act on an agent"); once the person went elsewhere, their keys are meant for
    /// where they went.
    landed: Option<(Arming, u64)>,
    /// Where the last move between panes began, for the key that goes back there.
    before: Option<moves::Before>,
}

/// The clock and each agent's last poll (in the order of the agent list) when the last frame
/// was drawn: what its "synced … ago" reads on screen.
#[derive(Debug, Clone)]
struct Drawn {
    now: OffsetDateTime,
    synced: Vec<Option<OffsetDateTime>>,
}

/// The frame and the runner read what the phone holds; only the router changes it.
impl std::ops::Deref for App {
    type Target = Phone;

    fn deref(&self) -> &Phone {
        &self.phone
    }
}

impl App {
    /// The agent is reached through ssh from `host` (`--ssh`): the screens say so, not "the
    /// private socket", though the phone dials one.
    pub fn reached_through_ssh(&mut self, agent: &str, host: &str) {
        if let Some(view) = self.phone.model.agent_mut(agent) {
            view.through_ssh = Some(host.to_string());
        }
    }

    /// How a shell reaches `agent` in the rings' answer command lines (`--socket PATH`).
    pub fn answers_with(&mut self, agent: &str, flags: String) {
        self.phone.view.ringer_mut().rings.dial_with(agent, flags);
    }

    /// The agent `collie-phone demo` runs listens on `socket`: Home and the help say it.
    pub fn demo_socket(&mut self, agent: &str, socket: &str) {
        if let Some(view) = self.phone.model.agent_mut(agent) {
            view.demo_socket = Some(socket.to_string());
        }
    }

    /// The runner found, at its start, that tmux keeps OSC 52 from the clipboard
    /// (`tui::osc::tmux_clipboard_now`): each copy then says what lets it through, until
    /// tmux is found to let it through after a copy (`Message::ClipboardChecked`).
    pub fn tmux_keeps_the_clipboard(&mut self) {
        self.phone.view.terminal_mut().tmux_keeps_clipboard = true;
    }

    /// After a copy the runner asked tmux again: when its answer changed, the phone keeps the
    /// new one and says again what became of the copy just made.
    fn clipboard_checked(&mut self, keeps: bool, text: &str) {
        let terminal = self.phone.view.terminal_mut();
        if terminal.tmux_keeps_clipboard == keeps {
            return;
        }
        terminal.tmux_keeps_clipboard = keeps;
        crate::screens::search::tell_copy_again(&mut self.phone, text);
    }

    /// What a phone kept of the panes the person saw before it stopped (SPEC A22), read back
    /// by the runner from the state folder.
    pub fn recall_seen(&mut self, kept: &str) {
        self.phone.model.recall_seen(kept);
    }

    /// What to keep in the state folder of the panes the person saw, when it changed since it
    /// was last kept (SPEC A22): the runner asks as it stops, between the once-a-second writes.
    pub fn seen_to_keep(&mut self) -> Option<String> {
        self.phone.model.seen_to_keep()
    }

    pub fn new(setup: AppSetup) -> Self {
        Self {
            nav: Navigation::default(),
            phone: Phone::new(setup),
            focused: true,
            last_key: None,
            watching: true,
            drawn: None,
            after_keys_paste: false,
            landed: None,
            before: None,
        }
    }

    /// True while new exchanges change what is on screen.
    pub fn shows_exchanges(&self) -> bool {
        matches!(self.nav.top(), Screen::Inspector(_))
    }

    /// True when `message` can change what is drawn, so the runner draws a frame after it;
    /// asked after [`App::set_now`], before [`App::update`]. Two messages say they change
    /// nothing: an exchange away from the wire inspector, and a poll that went through
    /// (`Synced`) when the agent's "synced … ago" would read the words the last frame shows
    /// (home shows it to the second; docs/SPEC.md S7). Every poll of every agent brings one, so
    /// on a busy phone these are most of the messages. The one-second tick redraws anyway, so
    /// every time on screen ages as before.
    pub fn redraws(&self, message: &Message) -> bool {
        match message {
            Message::Engine(FromEngine::Exchange(_)) => self.shows_exchanges(),
            Message::Engine(FromEngine::Agent {
                agent,
                change: AgentChange::Synced(at),
            }) => self.synced_ends_a_missed_poll(agent) || self.synced_words_change(agent, *at),
            _ => true,
        }
    }

    /// True when the poll ends a missed one: the pane's "missed a poll" line goes with it.
    fn synced_ends_a_missed_poll(&self, agent: &str) -> bool {
        self.phone
            .agents()
            .get(agent)
            .is_some_and(|a| a.missed.is_some())
    }

    /// True unless the last frame shows `agent` synced in the words a poll at `at` reads now.
    fn synced_words_change(&self, agent: &str, at: OffsetDateTime) -> bool {
        let list = &self.phone.agents().list;
        let Some(drawn) = self.drawn.as_ref().filter(|d| d.synced.len() == list.len()) else {
            return true;
        };
        let Some(Some(shown)) = list
            .iter()
            .position(|a| a.name == agent)
            .and_then(|index| drawn.synced.get(index))
        else {
            return true;
        };
        let words =
            |now: OffsetDateTime, at: OffsetDateTime| crate::look::ago((now - at).whole_seconds());
        words(drawn.now, *shown) != words(self.phone.now(), at)
    }

    /// Shows what an export came to under the inspector's list, or as a message elsewhere.
    fn note_export(&mut self, text: String, trouble: bool) {
        let mut noted = false;
        for screen in self.nav.screens_mut() {
            if let Screen::Inspector(inspector) = screen {
                inspector.note(text.clone(), trouble);
                noted = true;
            }
        }
        if !noted {
            self.phone.show_toast(text, trouble);
        }
    }

    /// The ask of the card on top, if a card is.
    fn card_on_top(&self) -> Option<AskKey> {
        match self.nav.top() {
            Screen::Card(card) => Some(card.key.clone()),
            _ => None,
        }
    }

    /// The stack of screens.
    pub fn nav(&self) -> &Navigation {
        &self.nav
    }

    /// The phone, to change it from a test or a bench (the export folder, a clock, a memo).
    pub fn phone_mut(&mut self) -> &mut Phone {
        &mut self.phone
    }

    pub fn update(&mut self, message: Message) -> Vec<Command> {
        let (moves, toasts) = (self.nav.moves(), self.phone.footer.shown());
        let floating = self.phone.overlay.as_ref().map(std::mem::discriminant);
        // The person's inputs end a paste that came in pieces; the clock and the engine do not.
        let input = match &message {
            Message::KeysPaste(_) => Some(true),
            Message::Key(_) | Message::Mouse(_) | Message::Bunch(_) | Message::Paste(_) => {
                Some(false)
            }
            _ => None,
        };
        let card_before = self.card_on_top();
        let commands = self.take_message(message);
        // A card that closed by itself (answered, taken by another phone, gone) leaves the
        // screen under it to keys meant for the card: those that act wait the reading time
        // (docs/KEYS.md). The person's own Esc is no such surprise.
        if input.is_none() && card_before.is_some() && self.card_on_top() != card_before {
            self.landed = Some((
                Arming::start(Why::CardClosed, self.phone.now()),
                self.nav.moves(),
            ));
        }
        self.phone.model.settle_came_back();
        // The pane the person came to is seen as it is (SPEC A22).
        if self.nav.moves() != moves {
            self.look_at_top();
        }
        if let Some(keys_paste) = input {
            self.after_keys_paste = keys_paste;
        }
        // A message speaks of the screen it was shown on: once another screen is on top, one
        // shown before the move is gone; one shown by the move itself (the card that closed
        // and the pane it went back to) stays.
        // Something that floats up over the screen (a question, a prompt, the help) is such a
        // move too: the message below it spoke of the moment before.
        let floats_up = self.phone.overlay.is_some()
            && self.phone.overlay.as_ref().map(std::mem::discriminant) != floating;
        if (self.nav.moves() != moves || floats_up) && self.phone.footer.shown() == toasts {
            self.phone.footer.clear();
        }
        // What a message speaks of may have changed under it (docs/ARCHITECTURE.md, "What a
        // message is about").
        self.phone.settle_toast();
        commands
    }

    fn take_message(&mut self, message: Message) -> Vec<Command> {
        let commands = match message {
            Message::Key(key) => {
                let commands = self.on_key(key);
                self.remember_selections();
                commands
            }
            Message::Mouse(mouse) => {
                let commands = self.on_mouse(mouse);
                self.remember_selections();
                commands
            }
            Message::Bunch(keys) => {
                let commands = self.on_bunch(&keys);
                self.remember_selections();
                commands
            }
            Message::Paste(text) => self.on_paste(&text),
            Message::KeysPaste(text) => {
                self.phone.view.set_paste_continues(self.after_keys_paste);
                let commands = self.on_keys_paste(&text);
                self.phone.view.set_paste_continues(false);
                self.remember_selections();
                commands
            }
            Message::Resize(width, height) => {
                self.phone.view.set_size((width, height));
                self.clamp_lists();
                Vec::new()
            }
            Message::Focus(focused) => {
                self.focused = focused;
                self.phone.view.ringer_mut().focus = Some(focused);
                self.watching_change()
            }
            Message::Engine(update) => {
                let commands = self.on_engine(update);
                self.phone.settle_confirm();
                commands
            }
            Message::Tick(now) => {
                self.set_now(now);
                self.phone.model.outbox_mut().tick(now);
                self.phone.bring_back_waited(now);
                let mut commands = self.watching_change();
                commands.extend(self.ring_tick());
                // What was seen goes to the state folder at most once a second (SPEC A22).
                commands.extend(self.phone.model.seen_to_keep().map(Command::KeepSeen));
                commands
            }
            Message::Exported {
                path,
                exchanges,
                result,
            } => {
                let (text, trouble) = crate::app::wire_log::export_words(&path, exchanges, result);
                self.note_export(text, trouble);
                Vec::new()
            }
            Message::LinkOpened { url, result } => {
                let link_card = crate::screens::card::keys::LINK;
                let copies = (self.context() == link_card).then_some((link_card, "the link"));
                crate::screens::pane::select::link_opened(&mut self.phone, &url, result, copies);
                Vec::new()
            }
            Message::EditedOutside { target, result } => {
                crate::app::outside_editor::came_back(&mut self.phone, &target, result);
                Vec::new()
            }
            Message::ClipboardChecked { keeps, text } => {
                self.clipboard_checked(keeps, &text);
                Vec::new()
            }
            Message::Pushed { failure } => {
                self.pushed(failure);
                Vec::new()
            }
            Message::Demo { agent, news } => {
                if let Some(view) = self.phone.model.agent_mut(&agent) {
                    view.demo_news = Some(news);
                }
                Vec::new()
            }
        };
        self.apply_steps();
        commands
    }

    /// When the runner must wake for the screen to stay true besides its one-second tick: the
    /// next second boundary of the nearest ask deadline (docs/ASKS.md, "When an ask expires"),
    /// the moment a receipt fades or a message goes (SPEC Q6).
    pub fn next_wake(&self) -> Option<OffsetDateTime> {
        let now = self.phone.now();
        // A receipt that fades and a message that goes change the screen too (SPEC Q6).
        let toast = self
            .phone
            .footer
            .toast()
            .map(|t| t.until)
            .filter(|at| *at > now);
        [
            inbox::next_countdown_change(self.phone.agents(), now),
            self.phone.intents().next_fade(now),
            toast,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Sets the clock. The runner calls this before every message, not only on the one-second
    /// tick, so a key and an ask's change carry the time they were taken: the reading time of
    /// a card is a second (docs/ASKS.md, "The reading time"), and a tick-old clock could be most
    /// of it wrong. A clock that stepped back restarts each reading time from now instead of
    /// stretching it.
    pub fn set_now(&mut self, now: OffsetDateTime) {
        if now < self.phone.now() {
            for card in self.phone.model.cards_mut() {
                card.arming.clock_stepped_back(now);
            }
            match &mut self.phone.overlay {
                Some(Overlay::AllowAlways(question)) => question.arming.clock_stepped_back(now),
                Some(Overlay::Confirm {
                    arming: Some(arming),
                    ..
                }) => arming.clock_stepped_back(now),
                _ => {}
            }
            if let Some((closed, _)) = &mut self.landed {
                closed.clock_stepped_back(now);
            }
        }
        self.phone.view.set_clock(now);
    }

    /// The runner drew a frame: what floats over the screen has been seen, so a question in
    /// it may now be answered (a key that came before any frame showed it answers nothing).
    pub fn frame_drawn(&mut self) {
        self.phone.overlay_drawn();
        self.drawn = Some(Drawn {
            now: self.phone.now(),
            synced: self.phone.agents().list.iter().map(|a| a.synced).collect(),
        });
    }

    /// SPEC S7, T8: watching while the terminal has focus or a key came in the last minute.
    fn watching_change(&mut self) -> Vec<Command> {
        let recent_key = self
            .last_key
            .is_some_and(|at| (self.phone.now() - at).whole_seconds() < WATCHING_AFTER_KEY_SECONDS);
        let watching = self.focused || recent_key;
        if watching == self.watching {
            return Vec::new();
        }
        self.watching = watching;
        vec![Command::Engine(ToEngine::Watching(watching))]
    }

    /// Where keys go now: what floats over the screen, the list filter being typed, or the
    /// room on top.
    pub(crate) fn context(&self) -> Context {
        if let Some(overlay) = &self.phone.overlay {
            return overlay.keys();
        }
        let top = self.nav.top();
        if top.filter().is_some_and(|f| f.editing) {
            return overlay::keys::FILTER;
        }
        top.room().keys(&self.phone)
    }

    /// The lines of the `?` help for `context`: each action's keys and what it does. The help
    /// of the room's own keys lists only what can act there (`Room::lists`); what floats lists
    /// all of its keys.
    pub(crate) fn help_for(&self, context: Context) -> Vec<(String, String)> {
        let room = self.nav.top().room();
        let floating = match &self.phone.overlay {
            Some(Overlay::Help { under, .. }) => under.as_deref(),
            other => other.as_ref(),
        };
        let phone = &self.phone;
        self.phone
            .keymap()
            .help_where(context, |action| match floating {
                Some(overlay) => phone.overlay_lists(overlay, action),
                None => context != room.keys(phone) || room.lists(phone, action),
            })
    }

    /// What the `?` help says of `context`: its keys, and the room's notes after them when
    /// the help is the room's own (not a picker's).
    pub(crate) fn help_lines(&self, context: Context) -> overlay::help::HelpLines {
        let room = self.nav.top().room();
        let floating = matches!(
            &self.phone.overlay,
            Some(Overlay::Help { under: Some(_), .. })
        );
        let notes = if !floating && context == room.keys(&self.phone) {
            room.help_notes(&self.phone)
        } else {
            Vec::new()
        };
        overlay::help::HelpLines {
            keys: self.help_for(context),
            notes,
        }
    }

    /// What the `?` help lists where the keys go now.
    pub fn help_now(&self) -> Vec<(String, String)> {
        self.help_for(self.context())
    }

    /// The panes on screen, as (agent, pane), for the engine to read at every poll (SPEC S7,
    /// T8): the pane a pane screen shows, or the pane of the ask a card shows. No other screen
    /// shows a pane's chat: their states and asks come with the snapshot, which every poll
    /// reads. The runner hands this to the engine whenever it changes.
    pub fn panes_on_screen(&self) -> Vec<(String, String)> {
        self.nav.top().room().pane_on_screen().into_iter().collect()
    }

    /// Hands the room on top to `work`, then applies what it asked of the stack of screens.
    fn in_room(
        &mut self,
        work: impl FnOnce(&mut dyn Room, &mut Phone) -> Vec<Command>,
    ) -> Vec<Command> {
        let commands = work(self.nav.top_mut().room_mut(), &mut self.phone);
        self.apply_steps();
        commands
    }

    /// The screen a room asked for, made with its room's constructor; None when what it names
    /// is gone (an exchange the wire log let go).
    fn screen_for(&self, goto: Goto) -> Option<Screen> {
        Some(match goto {
            Goto::Pane { agent, pane } => Screen::Pane(PaneScreen::new(&agent, &pane)),
            Goto::Card(key) => Screen::Card(CardScreen::new(key)),
            Goto::Layout { agent } => Screen::Layout(LayoutScreen::new(agent)),
            Goto::New => Screen::New(NewScreen::default()),
            Goto::History { agent } => Screen::History(HistoryScreen::new(agent)),
            Goto::Conversation {
                agent,
                conversation,
                title,
            } => Screen::Conversation(ConversationScreen::open(
                &self.phone,
                agent,
                conversation,
                title,
            )),
            Goto::Inspector => Screen::Inspector(InspectorScreen::default()),
            Goto::Exchange { number } => {
                Screen::Exchange(ExchangeScreen::of(self.phone.wire(), number)?)
            }
            Goto::DshForm { agent, purpose } => {
                Screen::DshForm(Box::new(DshFormScreen::new(&agent, purpose)))
            }
        })
    }

    /// Applies the steps the rooms asked of the stack of screens, oldest first.
    fn apply_steps(&mut self) {
        for step in std::mem::take(&mut self.phone.steps) {
            match step {
                Step::Open(goto) => {
                    let Some(screen) = self.screen_for(goto) else {
                        continue;
                    };
                    if !self.nav.top().same_place(&screen) {
                        self.nav.push(screen);
                    }
                }
                Step::Back => self.back(),
                Step::FocusBox => {
                    if let Screen::Pane(pane) = self.nav.top_mut() {
                        pane.focus = PaneFocus::Input;
                        pane.search.editing = false;
                    }
                }
            }
        }
    }

    // ----- keys ------------------------------------------------------------------------------

    fn on_key(&mut self, key: KeyEvent) -> Vec<Command> {
        self.take_key(key, false).1
    }

    /// Keys that came together (docs/KEYS.md): each is taken as it would be alone when it
    /// types, moves or opens a screen; one that acts on an agent (`acts_on_agent`) is not
    /// acted on, and the phone says so.
    fn on_bunch(&mut self, keys: &[KeyEvent]) -> Vec<Command> {
        let mut commands = Vec::new();
        let mut left = Vec::new();
        for key in keys {
            let context = self.context();
            let action = self.phone.keymap().action(context, key);
            let (taken, more) = self.take_key(*key, true);
            commands.extend(more);
            if !taken {
                left.push((*key, context, action));
            }
        }
        let Some((first, context, _)) = left.first().copied() else {
            return commands;
        };
        let taken = if context.takes_typing() {
            "only the typing and the moves were taken"
        } else {
            "only the moves were taken"
        };
        let again = if left
            .iter()
            .all(|(key, ..)| keymap::Chord::of(key) == keymap::Chord::of(&first))
        {
            format!("Press {} again.", keymap::Chord::of(&first))
        } else {
            "Press them again, one at a time.".to_string()
        };
        self.phone.show_toast(
            format!("{} keys came together; {taken}. {again}", keys.len()),
            false,
        );
        let actions: Vec<String> = left
            .iter()
            .map(|(_, _, action)| action.map_or_else(|| "none".to_string(), Action::name))
            .collect();
        commands.push(Command::Log(format!(
            "{} keys came together on {}: not acted on: {}",
            keys.len(),
            context.title(),
            actions.join(", ")
        )));
        commands
    }

    /// Text pasted without markers: pasted where text is typed, elsewhere its characters are
    /// keys that came together (docs/KEYS.md), so only their moves are taken.
    fn on_keys_paste(&mut self, text: &str) -> Vec<Command> {
        if self.context().takes_paste() {
            return self.on_paste(text);
        }
        let keys: Vec<KeyEvent> = text
            .chars()
            .map(|c| {
                let code = match c {
                    '\n' => crossterm::event::KeyCode::Enter,
                    '\t' => crossterm::event::KeyCode::Tab,
                    c => crossterm::event::KeyCode::Char(c),
                };
                KeyEvent::new(code, crossterm::event::KeyModifiers::NONE)
            })
            .collect();
        self.on_bunch(&keys)
    }

    /// Takes one key; `bunched` when it came with others (docs/KEYS.md), then only what
    /// types or moves is acted on. Gives whether it was taken, and its commands.
    fn take_key(&mut self, key: KeyEvent, bunched: bool) -> (bool, Vec<Command>) {
        if key.kind == KeyEventKind::Release {
            return (true, Vec::new());
        }
        self.last_key = Some(self.phone.now());
        self.phone.view.ringer_mut().last_key = self.phone.now();
        let mut commands = self.watching_change();
        let context = self.context();
        let action = self.phone.keymap().action(context, &key);
        if bunched && !bunched_key_acts(context, action) {
            return (false, commands);
        }
        // A key just after a card closed by itself was meant for the card: one that acts on
        // the screen now on top waits the reading time, as an answer would (docs/KEYS.md).
        // After a move between panes Esc is let through: a move takes the place of the pane
        // before, so Esc goes back to the same screen whichever pane it was meant for.
        if acts_on_agent(context, action)
            && let Some((landed, _)) = self.landed.filter(|(_, moves)| *moves == self.nav.moves())
            && !(landed.why == Why::Moved && action == Some(Action::Back))
            && let Some(why) = landed.refusal(self.phone.now())
        {
            self.phone.show_toast(why, false);
            let what = if landed.why == Why::Moved {
                "a move between panes"
            } else {
                "a card closed"
            };
            commands.push(Command::Log(format!(
                "a key came just after {what}, on {}: not acted on: {}",
                context.title(),
                action.map_or_else(|| "none".to_string(), Action::name)
            )));
            return (true, commands);
        }
        if action == Some(Action::Redraw) {
            // Before anything else: it must work over a help, a too-small terminal, a prompt.
            commands.push(Command::Redraw);
            return (true, commands);
        }
        if geometry::is_too_small(self.phone.size().0, self.phone.size().1) {
            // Nothing is drawn but the message; only quitting makes sense.
            if action == Some(Action::Quit) {
                commands.extend(self.phone.quit());
            }
            return (true, commands);
        }
        let more = if matches!(self.phone.overlay, Some(Overlay::Help { .. })) {
            self.help_key(action);
            Vec::new()
        } else if matches!(self.phone.overlay, Some(Overlay::AllowAlways(_))) {
            crate::screens::card::allow_always_key(&mut self.phone, action)
        } else if self.phone.overlay.is_some() {
            self.phone.overlay_key(action, &key)
        } else if context == overlay::keys::FILTER {
            self.filter_key(action, &key)
        } else {
            match action {
                Some(Action::Quit) => self.in_room(|room, phone| room.quit(phone)),
                Some(Action::Help) => {
                    self.phone.overlay = Some(Overlay::Help {
                        context,
                        scroll: 0,
                        under: None,
                    });
                    Vec::new()
                }
                Some(Action::Filter) => {
                    if let Some(filter) = self.nav.top_mut().filter_mut() {
                        filter.editing = true;
                    }
                    Vec::new()
                }
                Some(Action::Wire) => {
                    self.phone.open(Goto::Inspector);
                    Vec::new()
                }
                // The same key on every screen, so it is the router's (docs/KEYS.md, "The
                // ask that needs you first").
                Some(Action::NextAsk) => {
                    let on_screen = self.card_on_top();
                    let from = (self.place_on_top(), self.nav.depth(), self.nav.moves());
                    self.phone.open_next_ask(on_screen.as_ref());
                    self.apply_steps();
                    self.note_move(from.0, from.1, from.2);
                    Vec::new()
                }
                // Moving between panes, the same keys on every screen (docs/KEYS.md, "Moving
                // without going back").
                Some(action @ (Action::NextPane | Action::PrevPane | Action::NextNews)) => {
                    self.take_move(action);
                    Vec::new()
                }
                Some(Action::WhereYouWere) => {
                    self.go_where_you_were();
                    Vec::new()
                }
                Some(Action::Mouse) => self.phone.toggle_mouse(context),
                Some(Action::Rings) => {
                    self.phone.overlay = Some(Overlay::Rings { selected: 0 });
                    Vec::new()
                }
                // Esc clears a kept filter before it leaves the screen.
                Some(Action::Back) if self.nav.top().filter().is_some_and(|f| f.is_active()) => {
                    let room = self.nav.top_mut().room_mut();
                    if let Some(filter) = room.filter_mut() {
                        *filter = Default::default();
                    }
                    room.filter_changed();
                    Vec::new()
                }
                Some(action) => self.in_room(|room, phone| room.act(phone, action)),
                None if context.takes_typing() => self.in_room(|room, phone| {
                    room.typed(phone, &key);
                    Vec::new()
                }),
                None => Vec::new(),
            }
        };
        commands.extend(more);
        (true, commands)
    }

    /// A key over the help: it scrolls by a line, a page or to an end, never past its last
    /// line, or closes.
    fn help_key(&mut self, action: Option<Action>) {
        let Some(Overlay::Help {
            context, scroll, ..
        }) = self.phone.overlay
        else {
            return;
        };
        let layout = self.help_layout(context);
        let (max, page) = (layout.max_scroll(), layout.visible.max(1));
        // A taller terminal since the last key may show more: start from where it shows.
        let scroll = scroll.min(max);
        let scroll = match action {
            Some(Action::Up) => scroll.saturating_sub(1),
            Some(Action::Down) => scroll + 1,
            Some(Action::PageUp) => scroll.saturating_sub(page),
            Some(Action::PageDown) => scroll + page,
            Some(Action::Top) => 0,
            Some(Action::Bottom) => max,
            // What the help floated over (a picker) comes back as it was.
            Some(Action::Help | Action::Back) => {
                if let Some(Overlay::Help { under, .. }) = self.phone.overlay.take() {
                    self.phone.overlay = under.map(|o| *o);
                }
                return;
            }
            _ => scroll,
        };
        if let Some(Overlay::Help { scroll: at, .. }) = &mut self.phone.overlay {
            *at = scroll.min(max);
        }
    }

    /// The help of `context` as the terminal's size lays it out.
    fn help_layout(&self, context: Context) -> overlay::help::HelpLayout {
        let (width, height) = self.phone.size();
        overlay::help::layout(
            &self.phone,
            context,
            self.help_lines(context),
            ratatui::layout::Rect::new(0, 0, width, height),
        )
    }

    /// Whether a key of the help does something now: a page down only while more lies
    /// below, a page up only once scrolled.
    pub(crate) fn help_offers(&self, action: Action) -> bool {
        let Some(Overlay::Help {
            context, scroll, ..
        }) = self.phone.overlay
        else {
            return true;
        };
        let layout = self.help_layout(context);
        let scroll = scroll.min(layout.max_scroll());
        match action {
            Action::Up | Action::PageUp | Action::Top => scroll > 0,
            Action::Down | Action::PageDown | Action::Bottom => scroll < layout.max_scroll(),
            _ => true,
        }
    }

    /// Opens a pane's screen, as a person who picked it would.
    pub fn open_pane(&mut self, agent: &str, pane: &str) {
        self.phone.open_pane(agent, pane);
        self.apply_steps();
    }

    /// Opens an ask's card, as a person who picked it would.
    pub fn open_card(&mut self, key: AskKey) {
        self.phone.open_card(key);
        self.apply_steps();
    }

    /// Goes back one screen, forgetting a card whose ask is gone.
    pub fn back(&mut self) {
        if let Some(Screen::Card(card)) = self.nav.pop()
            && self
                .phone
                .card(&card.key)
                .is_some_and(|c| c.closed.is_some())
        {
            // A person's words are never dropped in silence: what was typed on a card whose
            // ask closed goes to its pane's box.
            if let Some(title) = self.phone.model.give_back_card_words(&card.key) {
                self.phone.show_toast(
                    format!("Not sent. Your words are in the pane's box ({title})."),
                    false,
                );
            }
            self.phone.model.forget_card(&card.key);
        }
    }

    /// Typing a list filter after `/`: Enter keeps it, Esc clears it, ↑/↓ move the list.
    fn filter_key(&mut self, action: Option<Action>, key: &KeyEvent) -> Vec<Command> {
        let room = self.nav.top_mut().room_mut();
        match action {
            Some(Action::Confirm) => {
                if let Some(filter) = room.filter_mut() {
                    filter.editing = false;
                }
            }
            Some(Action::Cancel) => {
                if let Some(filter) = room.filter_mut() {
                    filter.editing = false;
                    filter.editor.clear();
                }
                room.filter_changed();
            }
            Some(action @ (Action::Up | Action::Down)) => {
                return self.in_room(|room, phone| room.act(phone, action));
            }
            _ => {
                let Some(filter) = room.filter_mut() else {
                    return Vec::new();
                };
                let before = filter.text();
                typing::edit(&mut filter.editor, key, typing::Shape::OneLine);
                // Only other words make another list; a cursor move keeps the selection.
                if filter.text() != before {
                    room.filter_changed();
                }
            }
        }
        Vec::new()
    }

    // ----- mouse and paste ---------------------------------------------------------------------

    fn on_mouse(&mut self, mouse: MouseEvent) -> Vec<Command> {
        if self.phone.overlay.is_some()
            || geometry::is_too_small(self.phone.size().0, self.phone.size().1)
        {
            if let Some(Overlay::Help { scroll, .. }) = &mut self.phone.overlay {
                match mouse.kind {
                    MouseEventKind::ScrollDown => *scroll += 1,
                    MouseEventKind::ScrollUp => *scroll = scroll.saturating_sub(1),
                    _ => {}
                }
            }
            return Vec::new();
        }
        let (column, row) = (mouse.column, mouse.row);
        match mouse.kind {
            MouseEventKind::ScrollDown => {
                self.in_room(|room, phone| room.wheel(phone, true, column, row))
            }
            MouseEventKind::ScrollUp => {
                self.in_room(|room, phone| room.wheel(phone, false, column, row))
            }
            MouseEventKind::Down(MouseButton::Left) => {
                self.in_room(|room, phone| room.click(phone, column, row))
            }
            _ => Vec::new(),
        }
    }

    fn on_paste(&mut self, text: &str) -> Vec<Command> {
        let context = self.context();
        if !context.takes_paste() {
            return Vec::new();
        }
        match &mut self.phone.overlay {
            Some(Overlay::Prompt { editor, .. }) => typing::paste(editor, text, false),
            // Nothing else that floats takes words.
            Some(_) => {}
            None if context == overlay::keys::FILTER => {
                if let Some(filter) = self.nav.top_mut().filter_mut() {
                    typing::paste(&mut filter.editor, text, false);
                }
            }
            None => {
                return self.in_room(|room, phone| {
                    room.paste(phone, text);
                    Vec::new()
                });
            }
        }
        Vec::new()
    }

    // ----- the engine --------------------------------------------------------------------------

    fn on_engine(&mut self, update: FromEngine) -> Vec<Command> {
        match update {
            FromEngine::Agent { agent, change } => {
                if let crate::engine::AgentChange::Dsh(dsh) = &change {
                    self.phone.model.dsh_view_or_new(&agent).apply(dsh.clone());
                }
                if let crate::engine::AgentChange::Snapshot { snapshot, .. } = &change {
                    self.phone.model.carry_closed_task_chats(&agent, snapshot);
                }
                match &change {
                    crate::engine::AgentChange::Hello(hello) => {
                        self.phone
                            .model
                            .intents_mut()
                            .epoch_is(&agent, &hello.epoch);
                    }
                    crate::engine::AgentChange::NewEpoch { epoch } => {
                        self.phone.model.intents_mut().epoch_is(&agent, epoch);
                    }
                    _ => {}
                }
                let chat_changed = matches!(
                    change,
                    crate::engine::AgentChange::PaneEvents { .. }
                        | crate::engine::AgentChange::PaneView { .. }
                );
                // The key that opens History, for the note a chat over its budget gives.
                let history_key = chat_changed
                    .then(|| {
                        self.phone
                            .keymap()
                            .key_label(crate::screens::pane::keys::CHAT, Action::History)
                    })
                    .flatten();
                let Some(view) = self.phone.model.agent_mut(&agent) else {
                    return Vec::new();
                };
                let synced = matches!(change, crate::engine::AgentChange::Synced(_));
                let was_unreachable = inbox::is_unreachable(view);
                view.apply(change);
                // SPEC L2: a chat that grew may take the agent over its byte budget; the pane
                // the person reads lets go last, and the note names the key that really opens
                // History, when the agent keeps one.
                if chat_changed && view.chat_bytes() > crate::wire::limits::MAX_AGENT_CHAT_BYTES {
                    let words = crate::look::chat::let_go_words(
                        view.has_cap(crate::wire::caps::HISTORY),
                        history_key.as_deref(),
                    );
                    view.keep_within(
                        crate::wire::limits::MAX_AGENT_CHAT_BYTES,
                        self.nav.pane_read(&agent),
                        &words,
                    );
                }
                let ready = view.status.is_ready();
                // Most updates are a poll that brought nothing new: no row, ask or card can
                // change with it unless the agent became reachable or not, so the lists, the
                // bells and the cards are not gone over again (docs/ENGINE.md, "The phone in a
                // terminal": going over them at each agent's poll was most of an idle phone).
                let nothing_new = synced && was_unreachable == inbox::is_unreachable(view);
                if !nothing_new {
                    self.clamp_lists();
                }
                let mut commands = Vec::new();
                // A poll went through: sends that never left go by themselves now, with their
                // request ids, the first of each pane (docs/ENGINE.md).
                if synced && ready {
                    for request_id in self.phone.model.outbox_mut().go_again(&agent) {
                        commands.extend(self.phone.retry(&request_id));
                    }
                }
                if nothing_new {
                    return commands;
                }
                commands.extend(self.ring_heard(&agent));
                // The panes with news since the person saw them (SPEC A22).
                let looked_at = self.pane_looked_at(&agent);
                self.phone.model.hear_seen(&agent, looked_at.as_deref());
                self.refresh_cards();
                self.open_awaited_pane();
                commands
            }
            FromEngine::Intent(record) => self.on_intent(record),
            FromEngine::History { agent, page } => {
                let App { nav, phone, .. } = self;
                for screen in nav.screens_mut() {
                    if let Screen::Conversation(conversation) = screen {
                        conversation.pin(phone, &agent, &page);
                    }
                }
                self.phone.model.history_mut().apply(&agent, page);
                let App { nav, phone, .. } = self;
                for screen in nav.screens_mut() {
                    if let Screen::Conversation(conversation) = screen {
                        conversation.place(phone);
                    }
                }
                self.clamp_lists();
                Vec::new()
            }
            FromEngine::Exchange(record) => {
                self.phone.view.heard_exchange(record);
                Vec::new()
            }
        }
    }

    /// Redraws open cards from the live asks (SPEC A3) and lets answered ones go (SPEC A4, A7).
    /// A card whose ask changed starts its reading time again (docs/ASKS.md, "The reading
    /// time"), and an allow-always question about the ask it was is taken down: a yes to it
    /// would name what no longer is.
    fn refresh_cards(&mut self) {
        self.phone.refresh_cards();
        // "Already answered. This card goes away on the next refresh." (SPEC A7)
        let on_top = match self.nav.top() {
            Screen::Card(card) => Some(card.key.clone()),
            _ => None,
        };
        if let Some(heard) = on_top.and_then(|key| self.phone.model.hear_card_closed(&key)) {
            self.take_news(vec![heard]);
        }
        self.apply_steps();
    }

    fn on_intent(&mut self, record: IntentRecord) -> Vec<Command> {
        let news = self.phone.model.hear_intent(record, self.phone.now());
        self.take_news(news)
    }

    /// The model's news, routed: each screen hears it through its one hook and goes when it
    /// says so, and what is left is the phone's to do or say (docs/ARCHITECTURE.md, "The
    /// router routes"). The shell names no screen here.
    fn take_news(&mut self, news: Vec<Heard>) -> Vec<Command> {
        let mut commands = Vec::new();
        for heard in news {
            let App { nav, phone, .. } = self;
            let shown_here = nav.top().room().heard(phone, &heard) == Heeded::ShownHere;
            nav.retain(|screen| screen.room().heard(phone, &heard) != Heeded::Leave);
            match heard {
                Heard::AnswerTaken { .. } | Heard::PaneGone { .. } => {}
                // Another phone answered first (SPEC A7): never in silence, and the person's
                // words wait in the pane's box, where the pane now on screen shows them.
                Heard::AnsweredElsewhere {
                    key,
                    words,
                    words_back,
                } => {
                    if words_back && self.phone.agents().pane(&key.agent, &key.pane).is_some() {
                        self.phone.open_pane(&key.agent, &key.pane);
                    }
                    self.phone.show_toast(words, true);
                }
                Heard::PaneNamed { agent, pane } => {
                    commands.extend(self.await_pane(&agent, &pane));
                }
                Heard::PaneReady { agent, pane } => {
                    // "Starting …" or "Reopening …" is over: the pane is here.
                    self.phone.footer.clear();
                    self.phone.open_pane(&agent, &pane);
                }
                Heard::WordsBack { .. } => self.phone.steps.push(Step::FocusBox),
                Heard::Submit { agent, kind } => commands.extend(self.phone.submit(&agent, kind)),
                Heard::PollNow { agent } => {
                    commands.push(Command::Engine(ToEngine::PollNow { agent }));
                }
                Heard::Said { words, trouble } => self.phone.show_toast(words, trouble),
                Heard::Trouble { words, .. } if !shown_here => self.phone.show_toast(words, true),
                Heard::Trouble { .. } => {}
            }
        }
        self.apply_steps();
        commands
    }

    /// Waits for the pane a reply named (a starter's, a reopen's, a bridge task's): opened at
    /// once when the snapshot has it, else at the poll asked for here (SPEC A17).
    fn await_pane(&mut self, agent: &str, pane: &str) -> Option<Command> {
        self.phone.model.await_pane(agent, pane);
        self.open_awaited_pane();
        self.phone.awaiting_pane().is_some().then(|| {
            Command::Engine(ToEngine::PollNow {
                agent: agent.to_string(),
            })
        })
    }

    /// Opens the pane a starter or reopen named once the snapshot has it (SPEC A17).
    fn open_awaited_pane(&mut self) {
        if let Some(ready) = self.phone.model.hear_awaited_pane() {
            self.take_news(vec![ready]);
        }
    }

    /// Keeps every list's selection on a real row after the data or the size changed.
    fn clamp_lists(&mut self) {
        let App { nav, phone, .. } = self;
        for screen in nav.screens_mut() {
            screen.room_mut().follow(phone);
        }
    }

    /// Notes which row each list has selected, after the person moved.
    fn remember_selections(&mut self) {
        let App { nav, phone, .. } = self;
        for screen in nav.screens_mut() {
            screen.room_mut().remember(phone);
        }
    }

    /// The row selected in the list screen on top (workspaces, New, History) and how many
    /// rows it has; none on other screens.
    pub fn list_selection(&self) -> Option<(usize, usize)> {
        self.nav.top().room().list_selection(&self.phone)
    }
}

/// Whether a key acts on an agent, or cannot be taken back (docs/KEYS.md, "Keys that act on
/// an agent"): it answers, confirms, sends, presses a belt button, stops, closes, retries,
/// renames, starts, or quits. Such a key needs what an answer needs: to come alone, and not in a
/// reading time (`Arming::refusal`). Moving, opening a screen, looking and typing go through.
/// Decided by action, so a key changed in `[keys]` is judged by what it does; the one action
/// whose deed depends on where it is pressed is Open, which on the New page runs a starter.
fn acts_on_agent(context: Context, action: Option<Action>) -> bool {
    match action {
        Some(Action::Open) => context == crate::screens::new::keys::NEW,
        Some(
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom
            | Action::SelectPrev
            | Action::SelectNext
            // The next field of a form, the next setting of the picker: moves too.
            | Action::NextField
            | Action::PrevField
            | Action::NextMatch
            | Action::PrevMatch
            // Opening a screen, a line or a list to look at; a card opened so has its own
            // reading time before anything on it answers (docs/ASKS.md).
            | Action::FocusInput
            | Action::OpenAsk
            | Action::JumpExpiring
            | Action::NextAsk
            | Action::NextPane
            | Action::PrevPane
            | Action::NextNews
            | Action::WhereYouWere
            | Action::History
            | Action::NewPage
            | Action::Wire
            | Action::Help
            | Action::Filter
            | Action::Search
            | Action::ToggleThinking
            | Action::Cancel
            // Opening the box of a Deny's words: letters after it are typed, and the
            // Enter that sends both still waits to come alone (SPEC A21).
            | Action::DenyWithWords
            // Typing: a new line, and completing a command's name into the box.
            | Action::Newline
            | Action::Complete,
        ) => false,
        // Typed where text is typed; nothing at all elsewhere.
        None => false,
        Some(_) => true,
    }
}

/// What a key that came with others may do (docs/KEYS.md): all but what acts on an agent, and
/// in a pane's box send too (each Enter of a person's bunched words is a send of its own).
fn bunched_key_acts(context: Context, action: Option<Action>) -> bool {
    !acts_on_agent(context, action) || (context.takes_typing() && action == Some(Action::Send))
}

#[cfg(test)]
mod tests {
    use time::{Duration, OffsetDateTime};

    use super::*;
    use crate::app::settings::Settings;
    use crate::engine::AgentChange;
    use crate::look::theme::Theme;

    const START: OffsetDateTime = OffsetDateTime::UNIX_EPOCH;

    fn app() -> App {
        App::new(AppSetup {
            agents: vec![("demo".into(), false)],
            settings: Settings::default(),
            bridges: Vec::new(),
            theme: Theme::builtin("dark").expect("built in"),
            now: START,
            size: (80, 24),
        })
    }

    fn synced(agent: &str, at: OffsetDateTime) -> Message {
        Message::Engine(FromEngine::Agent {
            agent: agent.into(),
            change: AgentChange::Synced(at),
        })
    }

    /// Takes a message the way the runner does: the clock, the message, a frame if it asks.
    fn take(app: &mut App, now: OffsetDateTime, message: Message) -> bool {
        app.set_now(now);
        let redraws = app.redraws(&message);
        app.update(message);
        if redraws {
            app.frame_drawn();
        }
        redraws
    }

    #[test]
    fn a_poll_redraws_only_when_the_synced_words_on_screen_change() {
        let mut app = app();
        let ms = Duration::milliseconds;
        let at = |n: i64| START + ms(n);
        // The first poll: "not synced yet" becomes "synced just now".
        assert!(take(&mut app, at(0), synced("demo", at(0))));
        // Polls within the same second read "just now", as the screen does: nothing to draw.
        assert!(!take(&mut app, at(400), synced("demo", at(400))));
        assert!(!take(&mut app, at(900), synced("demo", at(900))));
        // The tick draws "just now" for the poll at 900; a poll a second later reads the same.
        assert!(take(&mut app, at(1000), Message::Tick(at(1000))));
        assert!(!take(&mut app, at(1900), synced("demo", at(1900))));
        // A tick that draws "2s ago" (no poll in between), then a poll: "just now", drawn.
        assert!(take(&mut app, at(4000), Message::Tick(at(4000))));
        assert!(take(&mut app, at(4100), synced("demo", at(4100))));
        // An agent the phone does not know, and every other message, are drawn.
        assert!(app.redraws(&synced("other", at(4100))));
        assert!(app.redraws(&Message::Resize(100, 30)));
    }
}

/// The mouse key, taken through the router as a person presses it.
#[cfg(test)]
mod mouse {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use super::App;
    use crate::app::settings::Settings;
    use crate::app::{AppSetup, Command, Message};
    use crate::look::theme::Theme;

    fn app() -> App {
        App::new(AppSetup {
            agents: vec![("demo".into(), false)],
            settings: Settings::default(),
            bridges: Vec::new(),
            theme: Theme::builtin("dark").expect("built in"),
            now: time::OffsetDateTime::UNIX_EPOCH,
            size: (80, 24),
        })
    }

    fn press_m(app: &mut App) -> Vec<bool> {
        let m = KeyEvent::new(KeyCode::Char('M'), KeyModifiers::SHIFT);
        app.update(Message::Key(m))
            .into_iter()
            .filter_map(|command| match command {
                Command::Mouse(captured) => Some(captured),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn m_leaves_the_mouse_to_the_terminal_and_takes_it_back_saying_so() {
        let mut app = app();
        assert!(app.view.terminal().mouse);
        assert_eq!(press_m(&mut app), [false]);
        assert!(!app.view.terminal().mouse);
        assert_eq!(
            app.footer.toast().map(|t| t.text.as_str()),
            Some("Mouse off: your terminal's selection works; press M to turn it back on")
        );
        assert_eq!(press_m(&mut app), [true]);
        assert!(app.view.terminal().mouse);
        assert!(
            app.footer.toast().is_some_and(|t| t.text
                == "Mouse on: wheel and clicks work here; press M for your terminal's selection"),
            "{:?}",
            app.footer.toast()
        );
    }

    #[test]
    fn a_clipboard_check_that_changes_nothing_says_nothing_again() {
        let mut app = app();
        app.tmux_keeps_the_clipboard();
        let checked = |keeps: bool, text: &str| Message::ClipboardChecked {
            keeps,
            text: text.to_string(),
        };
        app.update(checked(false, "one\ntwo"));
        assert!(!app.view.terminal().tmux_keeps_clipboard);
        assert_eq!(
            app.footer.toast().map(|t| t.text.as_str()),
            Some("Copied 2 lines to the clipboard (through the terminal, OSC 52).")
        );
        app.phone_mut().footer.clear();
        app.update(checked(false, "one\ntwo"));
        assert_eq!(app.footer.toast().map(|t| t.text.as_str()), None);
        app.update(checked(true, "one"));
        assert!(app.view.terminal().tmux_keeps_clipboard);
        assert!(
            app.footer
                .toast()
                .is_some_and(|t| t.text.starts_with("tmux drops the copy"))
        );
    }

    #[test]
    fn a_phone_started_without_the_mouse_takes_it_on_the_first_m() {
        let mut app = app();
        app.phone_mut().view.terminal_mut().mouse = false;
        assert!(!app.view.terminal().mouse);
        assert_eq!(press_m(&mut app), [true]);
    }
}
