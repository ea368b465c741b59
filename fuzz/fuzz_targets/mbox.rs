//! mbox input: the split into messages (`From ` envelope lines, `>From ` unquoting),
//! then each message through the MIME path. Properties: no panic, no hang; messages come in
//! file order at increasing offsets inside the input; a message is never longer than the input;
//! the bytes before the first message are counted exactly (the preamble), never lost in silence;
//! writing back (`mbox::join`) with nothing changed gives the input byte for byte.

#![no_main]

use libfuzzer_sys::fuzz_target;
use linkbase::input::mbox;
use linkbase::message::{links_message, MessageInput};
use linkbase::pipeline::Options;

fuzz_target!(|data: &[u8]| {
    let (messages, preamble) = mbox::split(data);
    assert!(preamble <= data.len(), "preamble past the input");
    let mut last = None;
    for (i, m) in messages.iter().enumerate() {
        assert_eq!(m.index, i, "indices in order");
        let at = usize::try_from(m.offset).unwrap_or(usize::MAX);
        assert!(at < data.len(), "offset {at} outside {} bytes", data.len());
        assert!(last.is_none_or(|l| l < at), "offsets increase");
        last = Some(at);
        // Unquoting only removes bytes.
        assert!(m.bytes.len() <= data.len() - at, "message longer than the rest");
        let input = MessageInput {
            name: "fuzz.mbox",
            bytes: &m.bytes,
            layers: Default::default(),
        };
        let _ = links_message(&input, &Options::default());
    }
    // Written back with nothing replaced, or each message replaced by itself: the input.
    assert_eq!(mbox::join(data, &messages, &[]), data, "join of nothing changed");
    let same: Vec<_> = messages.iter().map(|m| Some(m.bytes.clone())).collect();
    assert_eq!(mbox::join(data, &messages, &same), data, "join of the same bytes");
    // A replaced message reads back as written (mboxrd quoting, mboxcl2 Content-Length), and
    // the others as they were.
    if let Some(first) = messages.first() {
        let mut changed = first.bytes.clone();
        changed.extend_from_slice(b"\nFrom x\n>From y\n");
        let mut new = vec![None; messages.len()];
        new[0] = Some(changed.clone());
        let out = mbox::join(data, &messages, &new);
        let (again, _) = mbox::split(&out);
        let back = again.first().expect("the replaced message is read back");
        assert_eq!(back.offset, first.offset, "at the same place");
        if first.framing == mbox::Framing::FromLine && back.framing == first.framing {
            assert_eq!(back.bytes, changed, "read back as written");
        }
    }
    // The preamble is exactly what comes before the first envelope line: the whole input when
    // there is none.
    let first = messages.first().map_or(data.len() as u64, |m| m.offset);
    assert_eq!(preamble as u64, first, "preamble is the bytes before the first message");
});
