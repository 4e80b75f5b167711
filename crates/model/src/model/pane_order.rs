//! Every pane in one order, the layout tree's across agents (docs/KEYS.md, "Moving without
//! going back"): the agents as configured, and in each its workspaces, their tabs and their
//! panes as the snapshot lists them. The keys to the next and the previous pane, and to the
//! next pane with news, walk it round the end. Pure.

use crate::model::agents::Agents;

/// A pane by its agent's name and its id.
pub type Place<'a> = (&'a str, &'a str);

/// Every pane of every agent, in the tree's order.
pub fn every_pane(agents: &Agents) -> Vec<Place<'_>> {
    agents
        .list
        .iter()
        .flat_map(|agent| {
            agent.snapshot.iter().flat_map(move |snapshot| {
                snapshot
                    .panes()
                    .map(move |(_, _, pane)| (agent.name.as_str(), pane.id.as_str()))
            })
        })
        .collect()
}

/// The pane after `here` (`forward`) or before it, round the end; from nowhere (`here` is
/// none, or a pane no longer in the order) the first or the last. Never `here` itself: a
/// lone pane has no next.
pub fn step(order: &[Place<'_>], here: Option<Place<'_>>, forward: bool) -> Option<usize> {
    let at = here.and_then(|here| order.iter().position(|p| *p == here));
    let len = order.len();
    match at {
        None if len == 0 => None,
        None => Some(if forward { 0 } else { len - 1 }),
        Some(_) if len == 1 => None,
        Some(at) if forward => Some((at + 1) % len),
        Some(at) => Some((at + len - 1) % len),
    }
}

/// The first pane after `here`, round the end, that `news` marks; never `here` itself.
pub fn next_with_news(
    order: &[Place<'_>],
    here: Option<Place<'_>>,
    news: impl Fn(Place<'_>) -> bool,
) -> Option<usize> {
    let at = here.and_then(|here| order.iter().position(|p| *p == here));
    let start = at.map_or(0, |at| at + 1);
    (0..order.len())
        .map(|offset| (start + offset) % order.len())
        .filter(|index| Some(*index) != at)
        .find(|index| news(order[*index]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORDER: [Place<'static>; 4] = [("a", "p1"), ("a", "p2"), ("b", "q1"), ("b", "q2")];

    #[test]
    fn the_next_and_the_previous_pane_go_round_the_end_across_agents() {
        assert_eq!(step(&ORDER, Some(("a", "p2")), true), Some(2));
        assert_eq!(step(&ORDER, Some(("b", "q2")), true), Some(0));
        assert_eq!(step(&ORDER, Some(("a", "p1")), false), Some(3));
        assert_eq!(step(&ORDER, Some(("b", "q1")), false), Some(1));
        // From nowhere (Home, or a pane that went): the first, or the last.
        assert_eq!(step(&ORDER, None, true), Some(0));
        assert_eq!(step(&ORDER, Some(("gone", "x")), false), Some(3));
        // A lone pane has no next; no pane, nothing.
        assert_eq!(step(&ORDER[..1], Some(("a", "p1")), true), None);
        assert_eq!(step(&[], None, true), None);
    }

    #[test]
    fn the_next_pane_with_news_is_after_here_and_never_here() {
        let marked = |place: Place<'_>| place == ("a", "p1") || place == ("b", "q1");
        assert_eq!(next_with_news(&ORDER, Some(("a", "p2")), marked), Some(2));
        assert_eq!(next_with_news(&ORDER, Some(("b", "q1")), marked), Some(0));
        assert_eq!(next_with_news(&ORDER, None, marked), Some(0));
        let only_here = |place: Place<'_>| place == ("a", "p2");
        assert_eq!(next_with_news(&ORDER, Some(("a", "p2")), only_here), None);
        assert_eq!(next_with_news(&ORDER, None, |_| false), None);
    }
}
