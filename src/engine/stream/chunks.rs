//! The bytes of a document, chunk by chunk: in memory, from a reader, and checked on the way
//! for byte sequences malformed in its encoding.

use crate::decode::Decoded;

/// Chunks, checked on the way for byte sequences malformed in the document's encoding.
pub(super) struct CheckedChunks<R> {
    pub(super) inner: ReaderChunks<R>,
    pub(super) decoder: encoding_rs::Decoder,
    pub(super) buffer: Vec<u8>,
    pub(super) malformed: bool,
    /// The byte order mark is not text.
    pub(super) skip_bom: bool,
}

impl<R: std::io::Read> CheckedChunks<R> {
    pub(super) fn new(reader: R, decoded: &Decoded) -> CheckedChunks<R> {
        CheckedChunks {
            inner: ReaderChunks::new(reader),
            decoder: decoded.encoding.new_decoder_without_bom_handling(),
            buffer: vec![0; 16 * 1024],
            malformed: false,
            skip_bom: decoded.bom,
        }
    }
}

impl<R: std::io::Read> Chunks for CheckedChunks<R> {
    fn next_chunk(&mut self) -> std::io::Result<Option<&[u8]>> {
        let chunk = self.inner.next_chunk()?;
        if let (Some(chunk), false) = (chunk, self.malformed) {
            let mut input = chunk;
            if std::mem::take(&mut self.skip_bom) {
                let bom = encoding_rs::Encoding::for_bom(chunk).map_or(0, |(_, n)| n);
                input = input.get(bom..).unwrap_or_default();
            }
            loop {
                let (result, read, _) =
                    self.decoder
                        .decode_to_utf8_without_replacement(input, &mut self.buffer, false);
                input = input.get(read..).unwrap_or_default();
                match result {
                    encoding_rs::DecoderResult::InputEmpty => break,
                    encoding_rs::DecoderResult::OutputFull => {}
                    encoding_rs::DecoderResult::Malformed(..) => {
                        self.malformed = true;
                        break;
                    }
                }
            }
        }
        Ok(chunk)
    }
}

/// The bytes of a document, chunk by chunk.
pub(crate) trait Chunks {
    /// The next chunk; `None` at the end.
    fn next_chunk(&mut self) -> std::io::Result<Option<&[u8]>>;
}

/// A document in memory: one chunk.
pub(super) struct SliceChunks<'a>(pub(super) Option<&'a [u8]>);

impl Chunks for SliceChunks<'_> {
    fn next_chunk(&mut self) -> std::io::Result<Option<&[u8]>> {
        Ok(self.0.take())
    }
}

/// A document read from a reader, 64 KiB at a time.
pub(crate) struct ReaderChunks<R> {
    pub(super) reader: R,
    pub(super) buffer: Vec<u8>,
}

impl<R: std::io::Read> ReaderChunks<R> {
    /// Chunks of `reader`.
    pub(crate) fn new(reader: R) -> ReaderChunks<R> {
        ReaderChunks {
            reader,
            buffer: vec![0; 64 * 1024],
        }
    }
}

impl<R: std::io::Read> Chunks for ReaderChunks<R> {
    fn next_chunk(&mut self) -> std::io::Result<Option<&[u8]>> {
        let n = loop {
            match self.reader.read(&mut self.buffer) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        Ok((n > 0).then(|| self.buffer.get(..n)).flatten())
    }
}
