//! WARC input: any bytes, as a `.warc` and gzip-compressed as a `.warc.gz`, read to the end
//! through the archive stage (record framing, damage recovery, HTTP payload decoding, revisit
//! lookups) and the link pipeline. No panic, no hang, memory bounded.
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use linkbase::archive::{self, Archive, ArchiveOptions, Event};

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("linkbase-fuzz-warc-{}", std::process::id()));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let _ = gz.write_all(data);
    let compressed = gz.finish().unwrap_or_default();
    for bytes in [data, &compressed[..]] {
        if std::fs::write(&path, bytes).is_err() {
            return;
        }
        let Ok(archive) = Archive::open(&path, ArchiveOptions::default()) else {
            continue;
        };
        for event in archive {
            if let Event::Html(h) = event {
                let _ = archive::links(&h, "fuzz", &Default::default());
            }
        }
    }
    let _ = std::fs::remove_file(&path);
});
