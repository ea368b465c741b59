//! The golden cases read in chunks (byte by byte, in odd and random sizes, whole) by the
//! streaming entry, with output that can be taken back.

use super::*;

/// How a reader hands the document to the streaming entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Chunking {
    /// At most this many bytes per read.
    Bytes(usize),
    /// A pseudo-random 1–128 bytes per read, from this seed (the same sequence at every read of
    /// the document).
    Random(u64),
    /// Everything in one read.
    Whole,
}

/// A reader of `bytes` in `chunking`'s steps.
struct Chunked {
    bytes: Arc<[u8]>,
    at: usize,
    chunking: Chunking,
    state: u64,
}

impl Chunked {
    fn new(bytes: Arc<[u8]>, chunking: Chunking) -> Chunked {
        let state = match chunking {
            Chunking::Random(seed) => seed | 1,
            _ => 0,
        };
        Chunked {
            bytes,
            at: 0,
            chunking,
            state,
        }
    }

    fn next_size(&mut self) -> usize {
        match self.chunking {
            Chunking::Bytes(n) => n,
            Chunking::Whole => usize::MAX,
            Chunking::Random(_) => {
                // xorshift64
                self.state ^= self.state << 13;
                self.state ^= self.state >> 7;
                self.state ^= self.state << 17;
                1 + (self.state % 128) as usize
            }
        }
    }
}

impl Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let size = self.next_size();
        let left = &self.bytes[self.at..];
        let n = size.min(buf.len()).min(left.len());
        buf[..n].copy_from_slice(&left[..n]);
        self.at += n;
        Ok(n)
    }
}

/// The reader behind the `chunks-*` variants hands out what it is asked to, and all of it.
pub(crate) fn chunked_reader_reads_in_the_sizes_asked() -> Result<(), String> {
    let bytes: Arc<[u8]> = (0..=255u8).cycle().take(1000).collect::<Vec<_>>().into();
    for (chunking, sizes) in [
        (Chunking::Bytes(1), vec![1; 5]),
        (Chunking::Bytes(61), vec![61; 5]),
        (Chunking::Whole, vec![1000]),
    ] {
        let mut reader = Chunked::new(bytes.clone(), chunking);
        let mut buf = [0u8; 4096];
        let got: Vec<usize> = (0..sizes.len())
            .map(|_| reader.read(&mut buf).unwrap())
            .collect();
        if got != sizes {
            return Err(format!("{chunking:?}: read {got:?}"));
        }
    }
    let mut reader = Chunked::new(bytes.clone(), Chunking::Random(seed("x")));
    let mut all = Vec::new();
    let mut sizes = std::collections::BTreeSet::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = reader.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        sizes.insert(n);
        all.extend_from_slice(&buf[..n]);
    }
    if all != *bytes || sizes.len() < 5 || sizes.iter().any(|&n| n > 128) {
        return Err(format!("random: {} bytes in sizes {sizes:?}", all.len()));
    }
    Ok(())
}

/// A stable seed per case (FNV-1a of its name), so a failure is reproduced by running it again.
pub(crate) fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Through the streaming entry of `rewrite_path`/`links_path`, the document read in `chunking`.
pub(crate) fn run_chunked(name: &str, p: &Prepared, chunking: Chunking) -> Result<Actual, String> {
    let (rewrite_options, report_options) = p.options(EngineChoice::Auto);
    let input = PathInput {
        name,
        path: Path::new(name),
        layers: p.layers.clone(),
        charset: p.charset.clone(),
        diagnostics: p.diagnostics.clone(),
    };
    let bytes: Arc<[u8]> = p.bytes.clone().into();
    let mut open = || -> std::io::Result<Box<dyn Read>> {
        Ok(Box::new(Chunked::new(bytes.clone(), chunking)))
    };
    let mut html = Vec::new();
    let mut rewrite_links = Vec::new();
    let (_, engine) = pipeline::stream_reopened(
        &input,
        &mut open,
        &rewrite_options,
        Some(&mut html),
        &mut |l| rewrite_links.push(l),
    )
    .map_err(|e| format!("rewrite ({chunking:?}): {e}"))?;
    if chunking != Chunking::Bytes(1) {
        // The rewinding entry (`rewrite FILE -o OUT`): the base guessed, checked by the walk
        // that writes, the output taken back when the guess was wrong; the same bytes.
        let mut again = Rewound::default();
        let written =
            pipeline::stream_reopened_rewinding(&input, &mut open, &rewrite_options, &mut again)
                .map_err(|e| format!("rewrite, rewinding ({chunking:?}): {e}"))?;
        if again.0 != html || written.engine != engine {
            return Err(format!(
                "rewinding ({chunking:?}) wrote otherwise ({:?} vs {engine:?}): {}",
                written.engine,
                short_diff(&html, &again.0)
            ));
        }
    }
    let mut links = Vec::new();
    let (base, _) = pipeline::stream_reopened(&input, &mut open, &report_options, None, &mut |l| {
        links.push(l)
    })
    .map_err(|e| format!("links ({chunking:?}): {e}"))?;
    Ok(Actual {
        html,
        links,
        base,
        rewrite_links,
        engine,
    })
}

/// Output in memory that can be taken back.
#[derive(Default)]
struct Rewound(Vec<u8>);

impl std::io::Write for Rewound {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl pipeline::Rewind for Rewound {
    fn rewind(&mut self) -> std::io::Result<()> {
        self.0.clear();
        Ok(())
    }
}
