//! The rules the reference agent breaks on purpose (`agent --break`, for `check`'s own tests):
//! what each layout-level rule needs laid into the world, in a tab of its own so nothing else
//! moves. The request-level breaks are read where each request is answered (`faults`).

use time::{Duration, OffsetDateTime};

use super::cards::{choice, field, form, text};
use super::faults::{Breaks, Rule};
use super::world::{World, default_belt};
use crate::wire::{
    AgentCommand, BeltButton, FieldKind, Item, ItemKind, Setting, SettingChoice, Starter, limits,
};

/// The title of the tab that holds what `--break` lays out, so nothing else moves.
pub(crate) const BROKEN_TAB: &str = "Broken on purpose";

/// Lays into `world` what each layout-level `--break` rule needs (`faults::Rule`):
/// one thing that breaks that rule and nothing else, in a pane of its own where it needs one.
/// Only for `check`'s own tests; never called without `--break`.
pub(crate) fn lay_out_breaks(world: &mut World, breaks: Breaks, now: OffsetDateTime) {
    if breaks.is_empty() {
        return;
    }
    world.breaks = breaks.clone();
    if breaks.has(Rule::A13) {
        // SPEC A13 wants a zone; this one has none (and so never times out here either).
        let zoneless = crate::wire::time::format(now + Duration::hours(1))
            .trim_end_matches('Z')
            .to_string();
        for pane in world.layout.panes.values_mut() {
            for open in &mut pane.asks {
                open.ask.expires_at = Some(crate::wire::Stamp::new(zoneless.clone()));
            }
        }
    }
    if breaks.has(Rule::LLayout) {
        while world.layout.workspaces.len() <= limits::MAX_WORKSPACES {
            world.add_workspace("One workspace too many");
        }
    }
    if breaks.has(Rule::LOpenAsks)
        && let Some(pane) = broken_pane(world, "Fifty-one open asks", default_belt(), now)
    {
        for index in 0..=limits::MAX_OPEN_ASKS_PER_PANE {
            let ask = text(&format!("Question {index}"), "Anything.", "", false);
            world.open_ask(&pane, &format!("call-too-many-{index}"), ask, now);
        }
    }
    if breaks.has(Rule::LAskOptions)
        && let Some(pane) = broken_pane(world, "Nine options", default_belt(), now)
    {
        let labels: Vec<String> = (1..=limits::MAX_CHOICE_OPTIONS + 1)
            .map(|i| format!("Way {i}"))
            .collect();
        let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
        world.open_ask(
            &pane,
            "call-nine-options",
            choice("Pick one of nine", "One option too many.", &labels),
            now,
        );
    }
    if breaks.has(Rule::LFormFields)
        && let Some(pane) = broken_pane(world, "Seven fields", default_belt(), now)
    {
        let fields = (1..=limits::MAX_FORM_FIELDS + 1)
            .map(|i| {
                field(
                    &format!("f{i}"),
                    &format!("Field {i}"),
                    FieldKind::Text,
                    false,
                    None,
                )
            })
            .collect();
        world.open_ask(
            &pane,
            "call-seven-fields",
            form("Seven fields", "One field too many.", fields),
            now,
        );
    }
    if breaks.has(Rule::LStarters) {
        let mut index = world.layout.starters.len();
        while world.layout.starters.len() <= limits::MAX_STARTERS {
            index += 1;
            world.layout.starters.push(Starter {
                id: format!("extra-starter-{index}"),
                title: format!("Extra starter {index}"),
                description: None,
            });
        }
    }
    if breaks.has(Rule::LBelt) {
        let mut belt: Vec<BeltButton> = (1..=limits::MAX_BELT_BUTTONS)
            .map(|i| BeltButton {
                id: format!("button-{i}"),
                label: format!("Button {i}"),
            })
            .collect();
        belt.push(BeltButton {
            id: "run-every-test".into(),
            label: "Run every test now".into(),
        });
        broken_pane(world, "Five buttons", belt, now);
    }
    if breaks.has(Rule::LSettings)
        && let Some(pane) = broken_pane(world, "Nine settings", default_belt(), now)
        && let Some(record) = world.layout.panes.get_mut(&pane)
    {
        // Set past the world's own caps, which would keep it inside the limits.
        let choice = |i: usize| SettingChoice {
            id: format!("choice-{i}"),
            name: format!("Choice {i}"),
            description: None,
            acts_without_asking: false,
        };
        record.settings = (0..=limits::MAX_SETTINGS)
            .map(|s| Setting {
                id: format!("setting-{s}"),
                name: format!("Setting {s}"),
                description: None,
                current: "choice-0".into(),
                choices: (0..=if s == 0 {
                    limits::MAX_SETTING_CHOICES
                } else {
                    1
                })
                    .map(choice)
                    .collect(),
            })
            .collect();
        record.commands = (0..=limits::MAX_COMMANDS)
            .map(|c| AgentCommand {
                name: format!("command-{c}"),
                description: None,
                hint: None,
            })
            .collect();
    }
    if breaks.has(Rule::LId) {
        let id = world.add_workspace("An id with a space");
        if let Some(workspace) = world.layout.workspaces.iter_mut().find(|w| w.id == id) {
            workspace.id = format!("{id} broken");
        }
    }
    if breaks.has(Rule::LReplySize) {
        // Every item is inside its own limit; the page of all of them is not (8 MiB).
        let text = "Every item is fine; the page is not. ".repeat(limits::MAX_CHAT_TEXT / 40);
        let count = limits::MAX_ITEMS_REPLY / text.len() + 10;
        let items = (0..count)
            .map(|_| (ItemKind::Reply, text.clone()))
            .collect();
        world.add_past_conversation("A page over 8 MiB", items, now);
    }
    if breaks.has(Rule::LEvents)
        && let Some(pane) = broken_pane(world, "A thousand events", default_belt(), now)
    {
        // World::events then serves them all in one reply instead of 1000 at a time.
        for index in 0..=limits::MAX_EVENTS_PER_REPLY {
            world.push_item(&pane, ItemKind::Notice, &format!("Step {index}."), now);
        }
    }
    if breaks.has(Rule::LItemText)
        && let Some(pane) = broken_pane(world, "Long markdown", default_belt(), now)
    {
        let mut item = Item::text("", ItemKind::Markdown, "m".repeat(limits::MAX_DOC_TEXT + 1));
        world.push_built_item(&pane, &mut item, now);
    }
    if breaks.has(Rule::LLink)
        && let Some(pane) = broken_pane(world, "Plain http link", default_belt(), now)
    {
        let mut item = Item::text("", ItemKind::Link, "");
        item.url = Some("http://example.com/insecure".into());
        item.title = Some("Not https".into());
        world.push_built_item(&pane, &mut item, now);
    }
    if breaks.has(Rule::L1)
        && let Some(pane) = broken_pane(world, "Terminal escape", default_belt(), now)
    {
        world.push_item(
            &pane,
            ItemKind::Notice,
            "This clears your screen: \u{1b}[2J",
            now,
        );
    }
}

/// A new pane with a running turn in the broken tab of the first workspace.
fn broken_pane(
    world: &mut World,
    title: &str,
    belt: Vec<BeltButton>,
    now: OffsetDateTime,
) -> Option<String> {
    let workspace = match world.layout.workspaces.first() {
        Some(w) => w.id.clone(),
        None => world.add_workspace(BROKEN_TAB),
    };
    let existing = world
        .layout
        .workspaces
        .iter()
        .find(|w| w.id == workspace)
        .and_then(|w| w.tabs.iter().find(|t| t.title == BROKEN_TAB))
        .map(|t| t.id.clone());
    let tab = match existing {
        Some(tab) => tab,
        None => world.add_tab(&workspace, BROKEN_TAB)?,
    };
    let pane = world.add_pane(&workspace, &tab, title, belt, now)?;
    world.start_turn(&pane, now);
    Some(pane)
}
