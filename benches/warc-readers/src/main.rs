//! `warc-readers READER FILE`: reads every record of FILE (`.warc` or `.warc.gz`) with READER
//! (`fastwarc`, `warc`, `linkbase`), reading each block whole, and prints the record count, the
//! block bytes and the errors met.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufReader, Read};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (reader, path) = (args[1].as_str(), args[2].as_str());
    let (mut records, mut bytes, mut errors) = (0u64, 0u64, 0u64);
    match reader {
        "fastwarc" => {
            use fastwarc::warc::iter::{ArchiveIterator, ArchiveIteratorOptions};
            let options = ArchiveIteratorOptions {
                parse_http: false,
                ..Default::default()
            };
            for r in ArchiveIterator::from_path_with_options(path, options).expect("open") {
                match r {
                    Ok(r) => {
                        let mut r = r.borrow_mut();
                        let mut block = Vec::new();
                        match r.reader_mut().map(|b| b.read_to_end(&mut block)) {
                            Some(Ok(_)) => {}
                            _ => errors += 1,
                        }
                        records += 1;
                        bytes += block.len() as u64;
                    }
                    Err(_) => {
                        errors += 1;
                        break; // it does not resume after an error
                    }
                }
            }
        }
        "warc" => {
            let file = BufReader::with_capacity(1 << 20, std::fs::File::open(path).expect("open"));
            let inner: Box<dyn Read> = if path.ends_with(".gz") {
                Box::new(flate2::read::MultiGzDecoder::new(file))
            } else {
                Box::new(file)
            };
            let mut reader = warc::WarcReader::new(BufReader::new(inner));
            let mut it = reader.stream_records();
            while let Some(r) = it.next_item() {
                match r {
                    Ok(mut r) => {
                        let mut block = Vec::new();
                        if r.read_to_end(&mut block).is_err() {
                            errors += 1;
                        }
                        records += 1;
                        bytes += block.len() as u64;
                    }
                    Err(_) => {
                        errors += 1;
                        break;
                    }
                }
            }
        }
        "linkbase" => {
            use linkbase::input::warc::{Item, WarcReader};
            let file = BufReader::with_capacity(256 * 1024, std::fs::File::open(path).expect("open"));
            for item in WarcReader::new(file).expect("open") {
                match item {
                    Item::Record(r) => {
                        records += 1;
                        bytes += r.block.map_or(0, |b| b.len() as u64);
                    }
                    Item::Damaged(_) => errors += 1,
                }
            }
        }
        other => panic!("unknown reader {other}: fastwarc, warc or linkbase"),
    }
    println!("{reader}: {records} records, {bytes} block bytes, {errors} errors");
}
