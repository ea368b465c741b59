#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use super::*;
use encoding_rs::{EUC_JP, GB18030, GBK, ISO_8859_2, SHIFT_JIS, X_USER_DEFINED};
use encoding_rs::{UTF_16BE, UTF_16LE};

fn ok(bytes: &[u8], label: Option<&str>) -> Decoded {
    decode(bytes, label).expect("decodes")
}

// --- BOM -------------------------------------------------------------------------------

#[test]
fn utf8_bom_wins_over_transport_and_meta() {
    let d = ok(
        b"\xEF\xBB\xBF<meta charset=shift_jis>\xC3\xA9",
        Some("windows-1252"),
    );
    assert_eq!(d.encoding, UTF_8);
    assert_eq!(d.source, EncodingSource::Bom);
    assert!(d.bom);
    assert_eq!(d.text, "<meta charset=shift_jis>é");
    assert_eq!(
        d.diagnostics,
        ["byte order mark (UTF-8) overrides transport charset label \"windows-1252\""]
    );
}

#[test]
fn utf16le_bom() {
    let d = ok(b"\xFF\xFE<\0p\0>\0\xE5\x65", None);
    assert_eq!(
        (d.encoding, d.source, d.bom),
        (UTF_16LE, EncodingSource::Bom, true)
    );
    assert_eq!(d.text, "<p>日");
    assert!(d.diagnostics.is_empty());
}

#[test]
fn utf16be_bom() {
    let d = ok(b"\xFE\xFF\0<\0p\0>\x65\xE5", Some("utf-16be"));
    assert_eq!(
        (d.encoding, d.source, d.bom),
        (UTF_16BE, EncodingSource::Bom, true)
    );
    assert_eq!(d.text, "<p>日");
    // The label agrees with the BOM: nothing to report.
    assert!(d.diagnostics.is_empty());
}

// --- Transport label -------------------------------------------------------------------

#[test]
fn transport_label_is_trimmed_and_beats_meta() {
    let d = ok(b"<meta charset=utf-8>\x93\xFA", Some("  Shift_JIS\t"));
    assert_eq!(
        (d.encoding, d.source, d.bom),
        (SHIFT_JIS, EncodingSource::Transport, false)
    );
    assert_eq!(d.text, "<meta charset=utf-8>日");
}

#[test]
fn unknown_transport_label_is_reported_and_sniffing_continues() {
    let d = ok(b"<meta charset=euc-jp>\xC6\xFC", Some("foo"));
    assert_eq!((d.encoding, d.source), (EUC_JP, EncodingSource::Meta));
    assert_eq!(d.text, "<meta charset=euc-jp>日");
    assert_eq!(
        d.diagnostics,
        ["unknown transport charset label \"foo\"; ignored"]
    );
}

#[test]
fn utf16_transport_label_is_used_as_is_without_bom() {
    let d = ok(b"<\0p\0>\0", Some("utf-16le"));
    assert_eq!(
        (d.encoding, d.source, d.bom),
        (UTF_16LE, EncodingSource::Transport, false)
    );
    assert_eq!(d.text, "<p>");
    // "utf-16" is a label of UTF-16LE.
    assert_eq!(ok(b"a\0", Some("utf-16")).text, "a");
}

#[test]
fn replacement_transport_label_decodes_to_one_replacement_character() {
    let d = ok(b"<p>hello</p>", Some("iso-2022-kr"));
    assert_eq!(
        (d.encoding, d.text.as_str(), d.had_errors),
        (REPLACEMENT, "\u{FFFD}", true)
    );
    assert_eq!(
        d.diagnostics,
        [
            "transport charset label names the replacement encoding: the document decodes to U+FFFD",
            "malformed byte sequences for replacement were replaced by U+FFFD",
        ]
    );
}

// --- Fallback, errors, binary ----------------------------------------------------------

#[test]
fn fallback_is_windows_1252() {
    let d = ok(b"<p>caf\xE9 \x80</p>", None);
    assert_eq!(
        (d.encoding, d.source, d.bom),
        (WINDOWS_1252, EncodingSource::Fallback, false)
    );
    assert_eq!(d.text, "<p>café €</p>");
    assert!(!d.had_errors);
    assert!(d.diagnostics.is_empty());
}

#[test]
fn malformed_input_is_recorded() {
    let d = ok(b"a\xFFb", Some("utf-8"));
    assert_eq!((d.text.as_str(), d.had_errors), ("a\u{FFFD}b", true));
    assert_eq!(
        d.diagnostics,
        ["malformed byte sequences for UTF-8 were replaced by U+FFFD"]
    );
}

#[test]
fn nul_in_first_8192_bytes_is_binary() {
    assert_eq!(
        decode(b"\x89PNG\r\n\x1a\n\0\0", None).unwrap_err(),
        DecodeError::Binary { offset: 8 }
    );
    assert_eq!(
        decode(b"ab\0", Some("utf-8")).unwrap_err(),
        DecodeError::Binary { offset: 2 }
    );
    // An unknown label is no UTF-16 label.
    assert_eq!(
        decode(b"\0", Some("foo")).unwrap_err(),
        DecodeError::Binary { offset: 0 }
    );
    assert_eq!(
        DecodeError::Binary { offset: 8 }.to_string(),
        "binary data, not a text document (NUL byte at offset 8)"
    );
}

#[test]
fn nul_after_8192_bytes_or_after_a_bom_is_text() {
    let mut late = vec![b'a'; BINARY_SNIFF_LIMIT];
    late.push(0);
    assert_eq!(ok(&late, None).text.len(), BINARY_SNIFF_LIMIT + 1);
    assert_eq!(ok(b"\xEF\xBB\xBFa\0", None).text, "a\0");
}

#[test]
fn bomless_utf16_without_utf16_label_is_binary() {
    // Even with the UTF-16 XML declaration the prescan would recognise: see the report.
    let doc = b"<\0?\0x\0m\0l\0";
    assert_eq!(
        decode(doc, None).unwrap_err(),
        DecodeError::Binary { offset: 1 }
    );
}

// --- Prescan: <meta> -------------------------------------------------------------------

#[test]
fn prescan_meta_charset_forms() {
    assert_eq!(prescan(b"<meta charset=\"shift_jis\">"), Some(SHIFT_JIS));
    assert_eq!(prescan(b"<meta charset='EUC-JP'>"), Some(EUC_JP));
    assert_eq!(prescan(b"<META CHARSET=iso-8859-2>"), Some(ISO_8859_2));
    assert_eq!(prescan(b"<meta/charset=gbk />"), Some(GBK));
    // An unquoted value runs to whitespace or `>`: the `/` is part of it, `gbk/` is no label.
    assert_eq!(prescan(b"<meta/charset=gbk/>"), None);
    assert_eq!(prescan(b"<meta\ncharset = \" utf-8 \">"), Some(UTF_8));
    assert_eq!(prescan(b"<meta name=x charset=gb18030 >"), Some(GB18030));
}

#[test]
fn prescan_decode_uses_meta() {
    let d = ok(b"<meta charset=shift_jis>\x93\xFA", None);
    assert_eq!(
        (d.encoding, d.source, d.text.as_str()),
        (
            SHIFT_JIS,
            EncodingSource::Meta,
            "<meta charset=shift_jis>日"
        )
    );
}

#[test]
fn prescan_http_equiv_content_needs_pragma() {
    let pragma = b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=euc-jp\">";
    assert_eq!(prescan(pragma), Some(EUC_JP));
    // The pragma may come after `content`.
    let after = b"<meta content='text/html;charset=shift_jis' http-equiv=content-type>";
    assert_eq!(prescan(after), Some(SHIFT_JIS));
    // No pragma: `content` alone is ignored, and so is a different http-equiv.
    assert_eq!(
        prescan(b"<meta content=\"text/html; charset=euc-jp\">"),
        None
    );
    assert_eq!(
        prescan(b"<meta http-equiv=refresh content=\"charset=euc-jp\">"),
        None
    );
}

#[test]
fn prescan_charset_attribute_needs_no_pragma_and_beats_content() {
    let both = b"<meta content='text/html; charset=euc-jp' charset=shift_jis>";
    assert_eq!(prescan(both), Some(SHIFT_JIS));
    // A failed `charset` still blocks a later `content` and needs no pragma: nothing.
    let failed = b"<meta charset=bogus content='charset=euc-jp' http-equiv=content-type>";
    assert_eq!(prescan(failed), None);
}

#[test]
fn prescan_repeated_attributes_are_ignored() {
    assert_eq!(
        prescan(b"<meta charset=euc-jp charset=shift_jis>"),
        Some(EUC_JP)
    );
    let pragma = b"<meta http-equiv=refresh http-equiv=content-type content='charset=gbk'>";
    assert_eq!(prescan(pragma), None);
}

#[test]
fn prescan_goes_on_after_a_meta_without_charset() {
    let doc = b"<meta name=viewport content=x><meta charset=bogus><meta charset=euc-jp>";
    assert_eq!(prescan(doc), Some(EUC_JP));
}

#[test]
fn prescan_utf16_label_means_utf8_and_x_user_defined_means_windows_1252() {
    assert_eq!(prescan(b"<meta charset=utf-16le>"), Some(UTF_8));
    assert_eq!(prescan(b"<meta charset=UTF-16>"), Some(UTF_8));
    let pragma = b"<meta http-equiv=content-type content='charset=utf-16be'>";
    assert_eq!(prescan(pragma), Some(UTF_8));
    assert_eq!(
        prescan(b"<meta charset=x-user-defined>"),
        Some(WINDOWS_1252)
    );
}

#[test]
fn prescan_meta_content_extraction() {
    let with = |content: &str| {
        let doc = format!("<meta http-equiv=content-type content=\"{content}\">");
        prescan(doc.as_bytes())
    };
    assert_eq!(
        with("text/html; CHARSET = 'shift_jis' ; x"),
        Some(SHIFT_JIS)
    );
    assert_eq!(with("charsetcharset=euc-jp"), Some(EUC_JP));
    assert_eq!(with("charset x charset=gbk"), Some(GBK));
    assert_eq!(with("charset=euc-jp;foo"), Some(EUC_JP));
    assert_eq!(with("charset=euc-jp foo"), Some(EUC_JP));
    assert_eq!(with("charset='euc-jp"), None, "unmatched quote");
    assert_eq!(with("charset="), None, "no next character");
    assert_eq!(with("text/html"), None);
    assert_eq!(with("charset=nope"), None);
}

#[test]
fn prescan_meta_needs_space_or_slash() {
    assert_eq!(prescan(b"<metacharset=euc-jp>"), None);
    assert_eq!(prescan(b"<metax charset=euc-jp>"), None);
    assert_eq!(prescan(b"<meta\tcharset=euc-jp>"), Some(EUC_JP));
}

// --- Prescan: what it skips ------------------------------------------------------------

#[test]
fn prescan_skips_comments() {
    assert_eq!(
        prescan(b"<!-- <meta charset=gbk> --><meta charset=euc-jp>"),
        Some(EUC_JP)
    );
    // `<!-->` and `<!--->` are whole comments: the dashes may be those of `<!--`.
    assert_eq!(prescan(b"<!--><meta charset=euc-jp>"), Some(EUC_JP));
    assert_eq!(prescan(b"<!---><meta charset=euc-jp>"), Some(EUC_JP));
    // `->` does not end a comment.
    assert_eq!(
        prescan(b"<!-- -> <meta charset=gbk> --><meta charset=euc-jp>"),
        Some(EUC_JP)
    );
    // An unterminated comment runs out of bytes.
    assert_eq!(prescan(b"<!-- <meta charset=gbk>"), None);
}

#[test]
fn prescan_skips_attributes_of_other_tags() {
    let quoted = b"<div title='<meta charset=gbk>'><meta charset=euc-jp>";
    assert_eq!(prescan(quoted), Some(EUC_JP));
    let end_tag = b"</p title=\"<meta charset=gbk>\"><meta charset=euc-jp>";
    assert_eq!(prescan(end_tag), Some(EUC_JP));
    // An unquoted `>` ends the tag; what follows is scanned again.
    assert_eq!(prescan(b"<a x=y><meta charset=euc-jp>"), Some(EUC_JP));
}

#[test]
fn prescan_skips_bang_slash_and_question_constructs() {
    // `<?` hides a `<meta` up to the first `>`, quotes or not.
    let php = b"<!DOCTYPE html></ x><?php echo '<meta charset=gbk>' ?><meta charset=euc-jp>";
    assert_eq!(prescan(php), Some(EUC_JP));
    // So text after an early `>` is scanned again.
    assert_eq!(prescan(b"<?x a='>'<meta charset=gbk>?>"), Some(GBK));
    assert_eq!(
        prescan(b"<!DOCTYPE html><meta charset=euc-jp>"),
        Some(EUC_JP)
    );
    assert_eq!(
        prescan(b"</ <meta charset=gbk>><meta charset=euc-jp>"),
        Some(EUC_JP)
    );
}

#[test]
fn prescan_looks_at_the_first_1024_bytes_only() {
    let meta = b"<meta charset=euc-jp>";
    let mut doc = vec![b' '; prescan::PRESCAN_LIMIT - meta.len()];
    doc.extend_from_slice(meta);
    assert_eq!(prescan(&doc), Some(EUC_JP));
    doc.insert(0, b' ');
    // The `>` is now byte 1025: the meta is cut and the prescan runs out of bytes.
    assert_eq!(prescan(&doc), None);
    assert_eq!(ok(&doc, None).source, EncodingSource::Fallback);
}

#[test]
fn prescan_running_out_inside_a_meta_aborts() {
    // Cut inside an unquoted value or before the closing quote: no result, per the standard.
    assert_eq!(prescan(b"<meta charset=euc-jp"), None);
    assert_eq!(prescan(b"<meta charset=\"euc-jp"), None);
    // Even a complete quoted value needs a byte after it.
    assert_eq!(prescan(b"<meta charset=\"euc-jp\""), None);
    assert_eq!(prescan(b"<meta charset=\"euc-jp\" "), None);
}

// --- Prescan: XML declarations ---------------------------------------------------------

#[test]
fn prescan_utf16_xml_declaration() {
    assert_eq!(prescan(b"<\0?\0x\0m\0l\0"), Some(UTF_16LE));
    assert_eq!(prescan(b"\0<\0?\0x\0m\0l"), Some(UTF_16BE));
}

#[test]
fn prescan_xml_declaration_when_no_meta() {
    let decl = b"<?xml version=\"1.0\" encoding = 'Shift_JIS'?><p>";
    assert_eq!(prescan(decl), Some(SHIFT_JIS));
    // A <meta> wins over the declaration.
    assert_eq!(
        prescan(b"<?xml encoding='gbk'?><meta charset=euc-jp>"),
        Some(EUC_JP)
    );
    // UTF-16 in a declaration readable as ASCII means UTF-8.
    assert_eq!(prescan(b"<?xml encoding=\"UTF-16\"?>"), Some(UTF_8));
    // Not at the start, case-sensitive, spaces inside, or outside the declaration: nothing.
    assert_eq!(prescan(b" <?xml encoding='gbk'?>"), None);
    assert_eq!(prescan(b"<?XML encoding='gbk'?>"), None);
    assert_eq!(prescan(b"<?xml encoding=' gbk'?>"), None);
    assert_eq!(prescan(b"<?xml version='1.0'?> encoding='gbk'"), None);
}

#[test]
fn prescan_empty_and_plain_text() {
    assert_eq!(prescan(b""), None);
    assert_eq!(prescan(b"<"), None);
    assert_eq!(prescan(b"plain text, no markup"), None);
}

// --- charset_from_content_type ---------------------------------------------------------

#[test]
fn content_type_charset() {
    let get = |value: &str| charset_from_content_type(value);
    assert_eq!(get("text/html; charset=UTF-8").as_deref(), Some("utf-8"));
    assert_eq!(
        get("text/html;charset=\"Shift_JIS\"").as_deref(),
        Some("shift_jis")
    );
    assert_eq!(
        get(" TEXT/HTML; Charset=ISO-8859-1 ").as_deref(),
        Some("iso-8859-1")
    );
    assert_eq!(get("text/html; charset=foo").as_deref(), Some("foo"));
    assert_eq!(get("text/html"), None);
    assert_eq!(get("text/html; charset="), None);
    assert_eq!(get("not a mime type"), None);
}

// --- encode: round trips and NCRs ------------------------------------------------------

/// Decodes with `label`, checks the text, re-encodes, and expects the input back.
fn round_trip(bytes: &[u8], label: Option<&str>, text: &str, encoding: &'static Encoding) {
    let d = ok(bytes, label);
    assert_eq!(
        (d.text.as_str(), d.encoding, d.had_errors),
        (text, encoding, false)
    );
    assert_eq!(encode(&d.text, d.encoding, d.bom), bytes);
}

#[test]
fn round_trip_utf8_with_and_without_bom() {
    let text = "<p>héllo 日本 😀</p>\r\n";
    round_trip(text.as_bytes(), Some("utf-8"), text, UTF_8);
    let with_bom = [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat();
    round_trip(&with_bom, None, text, UTF_8);
}

#[test]
fn round_trip_legacy_encodings() {
    round_trip(b"caf\xE9 \x80\x93", None, "café €“", WINDOWS_1252);
    round_trip(
        b"\x93\xFA\x96\x7B\x8C\xEA",
        Some("shift_jis"),
        "日本語",
        SHIFT_JIS,
    );
    round_trip(
        b"\xC6\xFC\xCB\xDC\xB8\xEC",
        Some("euc-jp"),
        "日本語",
        EUC_JP,
    );
    round_trip(b"\xD6\xD0\xCE\xC4\x80", Some("gbk"), "中文€", GBK);
    let gb18030 = b"\xD6\xD0\xCE\xC4\x81\x30\x81\x30\x94\x39\xFC\x36";
    round_trip(gb18030, Some("gb18030"), "中文\u{80}😀", GB18030);
    round_trip(b"\xA3\xF3d\xBC", Some("iso-8859-2"), "Łódź", ISO_8859_2);
}

#[test]
fn round_trip_utf16() {
    round_trip(
        b"\xFF\xFEa\0\xE5\x65\x3D\xD8\x00\xDE",
        None,
        "a日😀",
        UTF_16LE,
    );
    round_trip(
        b"\xFE\xFF\0a\x65\xE5\xD8\x3D\xDE\x00",
        None,
        "a日😀",
        UTF_16BE,
    );
    round_trip(b"a\0\xE5\x65", Some("utf-16le"), "a日", UTF_16LE);
    round_trip(b"\0a\x65\xE5", Some("utf-16be"), "a日", UTF_16BE);
}

#[test]
fn round_trip_meta_declared_document() {
    let doc = b"<meta charset=shift_jis><p>\x93\xFA\x96\x7B</p>";
    round_trip(doc, None, "<meta charset=shift_jis><p>日本</p>", SHIFT_JIS);
}

#[test]
fn unrepresentable_characters_become_decimal_ncrs() {
    assert_eq!(encode("日", WINDOWS_1252, false), b"&#26085;");
    // The ISO-8859-1 label is windows-1252, which has €: use ISO-8859-2, which has not.
    let latin2 = Encoding::for_label(b"iso-8859-2").unwrap();
    assert_eq!(encode("€Ł😀", latin2, false), b"&#8364;\xA3&#128512;");
    assert_eq!(encode("😀", SHIFT_JIS, false), b"&#128512;");
}

#[test]
fn encode_bom_only_where_one_exists() {
    assert_eq!(encode("a", UTF_8, true), b"\xEF\xBB\xBFa");
    assert_eq!(encode("a", UTF_16LE, true), b"\xFF\xFEa\0");
    assert_eq!(encode("a", UTF_16BE, false), b"\0a");
    assert_eq!(encode("a", WINDOWS_1252, true), b"a");
    assert_eq!(encode("", UTF_16LE, false), b"");
}

#[test]
fn encode_replacement_as_utf8_and_x_user_defined_natively() {
    assert_eq!(
        encode("\u{FFFD}é", REPLACEMENT, false),
        "\u{FFFD}é".as_bytes()
    );
    let d = ok(b"a\x80\xFF", Some("x-user-defined"));
    assert_eq!(
        (d.text.as_str(), d.encoding),
        ("a\u{F780}\u{F7FF}", X_USER_DEFINED)
    );
    assert_eq!(encode(&d.text, d.encoding, d.bom), b"a\x80\xFF");
    assert_eq!(encode("日", X_USER_DEFINED, false), b"&#26085;");
}

#[test]
fn encoding_source_serializes_kebab_case() {
    let names = [
        EncodingSource::Bom,
        EncodingSource::Transport,
        EncodingSource::Meta,
        EncodingSource::Fallback,
    ]
    .map(|source| serde_json::to_string(&source).unwrap());
    assert_eq!(
        names,
        ["\"bom\"", "\"transport\"", "\"meta\"", "\"fallback\""]
    );
}

// --- No panic on any input -------------------------------------------------------------

use crate::testutil::XorShift;

/// Fragments that steer random input into every branch of the prescan.
const FRAGMENTS: &[&[u8]] = &[
    b"<meta ",
    b"<META/",
    b"charset",
    b"=",
    b"\"",
    b"'",
    b">",
    b"/",
    b" ",
    b"\t",
    b"<",
    b"</",
    b"<!--",
    b"-->",
    b"<!",
    b"<?",
    b"<?xml ",
    b"encoding",
    b"content=",
    b";",
    b"http-equiv=content-type ",
    b"utf-16",
    b"shift_jis",
    b"x-user-defined",
    b"\0",
    b"\xEF\xBB\xBF",
    b"\xFF\xFE",
    b"\xFE\xFF",
    b"<\0?\0x\0",
    b"a",
];

fn random_document(rng: &mut XorShift) -> Vec<u8> {
    let len = rng.below(1600);
    let mut doc = Vec::with_capacity(len + 32);
    while doc.len() < len {
        if rng.next() % 2 == 0 {
            doc.extend_from_slice(FRAGMENTS[rng.below(FRAGMENTS.len())]);
        } else {
            doc.push(rng.next().to_le_bytes()[0]);
        }
    }
    doc
}

#[test]
fn no_panic_on_random_input() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let labels = [
        None,
        Some("utf-16le"),
        Some("utf-16be"),
        Some("bogus"),
        Some("shift_jis"),
    ];
    for _ in 0..4000 {
        let doc = random_document(&mut rng);
        let found = prescan(&doc);
        // Only the first 1024 bytes count.
        assert_eq!(
            found,
            prescan(&doc[..doc.len().min(prescan::PRESCAN_LIMIT)])
        );
        for label in labels {
            if let Ok(d) = decode(&doc, label) {
                let _ = encode(&d.text, d.encoding, d.bom);
            }
        }
    }
}
