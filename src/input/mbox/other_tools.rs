#![allow(clippy::indexing_slicing, clippy::unwrap_used)]

use super::*;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/fixtures/mbox/mimekit/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap()
}

/// MimeKit's `content-length.mbox.txt` (its source in `fixtures/README.md`): 29 messages,
/// eight of them after a `From - ` line with no date, at the offsets MimeKit's own test
/// expects (`content-length.unix-offsets.json`, `mboxMarkerOffset`). The rule that wanted a
/// date merged the message at 818963 into the one before it.
#[test]
fn mimekit_content_length_mbox() {
    let bytes = fixture("content-length.mbox.txt");
    let (messages, preamble) = split(&bytes);
    let offsets: Vec<u64> = messages.iter().map(|m| m.offset).collect();
    assert_eq!(preamble, 0);
    assert_eq!(
        offsets,
        [
            0, 1889, 8123, 14395, 22486, 771038, 818963, 822462, 825432, 830016, 837040, 853722,
            856577, 862355, 867093, 868864, 872492, 876423, 883132, 894463, 898685, 899789, 903919,
            907232, 911300, 915250, 920886, 926072, 928496
        ]
    );
    // Each message ends where the next starts (MimeKit's endOffset + 1), its Content-Length
    // honoured where it lands on the next envelope line.
    for pair in messages.windows(2) {
        assert_eq!(pair[0].end, pair[1].offset);
    }
    assert_eq!(messages[28].end, bytes.len() as u64);
    assert!(messages.iter().any(|m| m.framing == Framing::ContentLength));
}

/// MimeKit's `issue1189.mbox.txt`: four messages after `From ID@xxx` lines with no date.
#[test]
fn mimekit_issue1189_mbox() {
    let bytes = fixture("issue1189.mbox.txt");
    let (messages, preamble) = split(&bytes);
    assert_eq!((messages.len(), preamble), (4, 0));
    let subjects: Vec<bool> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            String::from_utf8_lossy(&m.bytes).contains(&format!("Subject: Message {}\n", i + 1))
        })
        .collect();
    assert_eq!(subjects, [true; 4]);
    assert_eq!(envelope_then_field(&bytes), Some(false));
}
