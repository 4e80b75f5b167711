//! Small words every sentence shares: a count with its noun in the right number, so no screen
//! or line says "1 panes" (Collie's voice: what the program saw, said plainly).

/// `n` and its noun: "1 pane", "2 panes", "0 panes".
pub fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_the_rest_plural() {
        assert_eq!(count(1, "pane", "panes"), "1 pane");
        assert_eq!(count(2, "pane", "panes"), "2 panes");
        assert_eq!(count(0, "open ask", "open asks"), "0 open asks");
    }
}
