//! Helpers shared by the integration tests.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The output of one `linkbase` run.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `linkbase` with `args`, feeding `stdin`.
pub fn linkbase(args: &[&str], stdin: &[u8]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_linkbase"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn linkbase");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let Output {
        status,
        stdout,
        stderr,
    } = child.wait_with_output().unwrap();
    Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8(stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(stderr).expect("stderr is UTF-8"),
    }
}

/// `stderr` with the run time that ends a summary line (`; 0.12 s`, the one figure a test
/// cannot know) written as `; T s`.
pub fn untimed(stderr: &str) -> String {
    stderr
        .lines()
        .map(|line| match line.rsplit_once("; ") {
            Some((head, time))
                if time.ends_with(" s")
                    && time.len() > 2
                    && time
                        .trim_end_matches(" s")
                        .chars()
                        .all(|c| c.is_ascii_digit() || c == '.') =>
            {
                format!("{head}; T s\n")
            }
            _ => format!("{line}\n"),
        })
        .collect()
}
