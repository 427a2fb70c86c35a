//! Questions on this process's terminal (stdin for the answer, stderr for the question), shared
//! by every command that confirms before it writes or grants something.

use std::io::{BufRead as _, Write as _};

/// One line from stdin without its line ending and surrounding spaces; `None` at end of input
/// or on a read error.
pub fn read_answer() -> Option<String> {
    let mut answer = String::new();
    match std::io::stdin().lock().read_line(&mut answer) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(answer.trim().to_owned()),
    }
}

/// Whether an answer means yes (`y`, `yes`, any case).
pub fn is_yes(answer: &str) -> bool {
    answer.eq_ignore_ascii_case("y") || answer.eq_ignore_ascii_case("yes")
}

/// Writes `prompt` on stderr and reads a yes/no answer; anything but yes is no.
pub fn confirm(prompt: &str) -> bool {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "{prompt}");
    let _ = err.flush();
    drop(err);
    read_answer().is_some_and(|a| is_yes(&a))
}

#[cfg(test)]
mod tests {
    use super::is_yes;

    #[test]
    fn only_yes_means_yes() {
        for yes in ["y", "Y", "yes", "YES", "Yes"] {
            assert!(is_yes(yes), "{yes}");
        }
        for no in ["", "n", "no", "yess", "ye", "always"] {
            assert!(!is_yes(no), "{no}");
        }
    }
}
