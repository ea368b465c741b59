//! `links`, `base` and `rewrite` of one input, whatever it is: open it (`load.rs`), run the
//! library's verb on its documents, print what it gives (a sink per output format), say on
//! stderr what calls for it (`said.rs`). `rewrite --extract` and a directory are apart.

use std::io::{self, BufWriter, Write};
use std::path::Path;

use linkbase::report::{write_jsonl, BaseRecord, LinkRecord};
use linkbase::source::{Document, MessageEnd, Skipped, WriteBack};
use linkbase::verb::{self, Done, Sink, Workers};
use rayon::prelude::*;

use crate::args::{BaseArgs, BaseFormat, LinksArgs, LinksFormat, RewriteArgs};
use crate::load::{self, options};
use crate::said::{self, Said, Verb};
use crate::tree::{run_rewrite_tree, single_relative};
use crate::{page, warc, with_output, Exit, Failure, Fatal};
use linkbase::fs as fsout;
use linkbase::text::{escape_controls, write_tsv};

/// The documents of a batch (an archive's records, a message's parts) on every core.
pub(crate) struct Pool;

impl Workers for Pool {
    fn each(&self, count: usize, task: &(dyn Fn(usize) + Sync)) {
        (0..count).into_par_iter().for_each(task);
    }
}

/// What a run prints on its output: link records, base records, or nothing (a rewrite writes
/// the input back instead).
enum Printed<'w> {
    /// With an mbox's column (TSV).
    Links(BufWriter<&'w mut dyn Write>, LinksFormat, bool),
    /// `--root`: but the records of a message's parts that are not its root.
    Bases(BufWriter<&'w mut dyn Write>, BaseFormat, bool),
    Nothing,
}

/// The one sink of `links`, `base` and `rewrite`: the records the command prints, in JSON Lines,
/// TSV or text, and what it says on stderr.
struct Printer<'w, 'a> {
    printed: Printed<'w>,
    said: Said<'a>,
}

impl Printer<'_, '_> {
    fn links(&mut self, links: &[LinkRecord]) -> io::Result<()> {
        match &mut self.printed {
            Printed::Links(out, LinksFormat::Jsonl, _) => write_jsonl(out, links),
            Printed::Links(out, LinksFormat::Tsv, mbox) => write_tsv(out, links, false, *mbox),
            _ => Ok(()),
        }
    }

    fn base(&mut self, b: &BaseRecord) -> io::Result<()> {
        match &mut self.printed {
            Printed::Bases(_, _, true) if b.origin.root == Some(false) => Ok(()),
            Printed::Bases(out, BaseFormat::Jsonl, _) => write_jsonl(out, std::slice::from_ref(b)),
            Printed::Bases(out, BaseFormat::Text, _) => linkbase::text::write_base_line(out, b),
            _ => Ok(()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.printed {
            Printed::Links(out, ..) | Printed::Bases(out, ..) => out.flush(),
            Printed::Nothing => Ok(()),
        }
    }
}

impl Sink for Printer<'_, '_> {
    fn link(&mut self, link: LinkRecord) -> io::Result<()> {
        self.links(std::slice::from_ref(&link))
    }
    fn links(&mut self, links: Vec<LinkRecord>) -> io::Result<()> {
        Printer::links(self, &links)
    }
    fn document(
        &mut self,
        d: &Document<'_>,
        done: Result<Done, linkbase::Error>,
    ) -> io::Result<()> {
        let printed = match &done {
            Ok(done) => self.base(&done.base),
            Err(_) => Ok(()),
        };
        self.said.document(d, done);
        printed
    }
    fn unread(&mut self, record: BaseRecord) -> io::Result<()> {
        let printed = self.base(&record);
        self.said.unread(record);
        printed
    }
    fn skipped(&mut self, skipped: &Skipped) -> io::Result<()> {
        self.said.skipped(skipped);
        Ok(())
    }
    fn message_end(&mut self, end: &MessageEnd) -> io::Result<()> {
        self.said.message_end(end);
        Ok(())
    }
    fn refused(&mut self, _: &Document<'_>, why: &str) -> io::Result<()> {
        self.said.refused(why);
        Ok(())
    }
}

pub(crate) fn run_links(args: &LinksArgs) -> Result<Exit, Failure> {
    with_output(args.output.as_deref(), |out| {
        let mut opened = load::open(&args.input, "links")?;
        let options = options(&args.input, false, None)?;
        let mut out = BufWriter::new(out);
        // An mbox's records say their message (`mbox_message`, as in JSON).
        let mbox = opened.source.kind() == linkbase::input::InputKind::Mbox;
        if matches!(args.format, LinksFormat::Tsv) {
            write_tsv(&mut out, &[], true, mbox)?;
        }
        let mut printer = Printer {
            printed: Printed::Links(out, args.format, mbox),
            said: Said::new(Verb::Links),
        };
        verb::links(&mut opened.source, &options, &Pool, &mut printer)?;
        printer.flush()?;
        Ok(printer.said.finish(&opened.source, ""))
    })
}

pub(crate) fn run_base(args: &BaseArgs) -> Result<Exit, Failure> {
    with_output(args.output.as_deref(), |out| {
        let mut opened = load::open(&args.input, "base")?;
        let options = options(&args.input, false, None)?;
        let mut printer = Printer {
            printed: Printed::Bases(BufWriter::new(out), args.format, args.root),
            said: Said::new(Verb::Base),
        };
        verb::base(&mut opened.source, &options, &Pool, &mut printer)?;
        printer.flush()?;
        Ok(printer.said.finish(&opened.source, ""))
    })
}

pub(crate) fn run_rewrite(args: &RewriteArgs) -> Result<Exit, Failure> {
    if Path::new(&args.input.input).is_dir() {
        return run_rewrite_tree(args);
    }
    if args.in_place && args.input.input == "-" {
        return Err(Fatal("--in-place needs an INPUT file, not stdin".into()).into());
    }
    // What the input was when read: an in-place write keeps its owner, group and mode, and is
    // refused if the file changed meanwhile.
    let input_path = Path::new(&args.input.input);
    let snapshot = match args.input.input.as_str() {
        "-" => None,
        _ => std::fs::metadata(input_path)
            .ok()
            .map(|m| fsout::Snapshot::of(&m)),
    };
    if let (Some(output), false) = (&args.output, args.in_place) {
        fsout::refuse_output_is_input(input_path, output, snapshot.as_ref()).map_err(Fatal)?;
    }
    let started = std::time::Instant::now();
    let mut opened = load::open(&args.input, "rewrite")?;
    let mut options = options(&args.input, args.drop_base, args.output_charset.as_deref())?;
    let archive = matches!(
        opened.source.write_back(),
        WriteBack::Conversions { .. } | WriteBack::InPlace { .. }
    );
    if args.relative && !archive {
        single_relative(args, &mut opened.source, &mut options)?;
    }
    if let Some(dir) = &args.extract {
        return extract(args, &mut opened, dir, &options, started);
    }
    refuse_for_archive(args, opened.source.write_back())?;
    let mut printer = Printer {
        printed: Printed::Nothing,
        said: Said::new(Verb::Rewrite(args)),
    };
    write_rewritten(args, snapshot.as_ref(), &mut |out| {
        verb::rewrite(&mut opened.source, &options, &Pool, out, &mut printer)
    })?;
    let tail = said::written(&opened.source)
        .map(|what| written_tail(&what, args, started))
        .unwrap_or_default();
    Ok(printer.said.finish(&opened.source, &tail))
}

/// `rewrite X --extract DIR`: an archive's pages and files, or a message's page and the parts
/// it references, below DIR.
fn extract(
    args: &RewriteArgs,
    opened: &mut load::Opened,
    dir: &Path,
    options: &linkbase::pipeline::Options,
    started: std::time::Instant,
) -> Result<Exit, Failure> {
    let source = &mut opened.source;
    if let Some(archive) = source.archive() {
        if args.in_place {
            return Err(Fatal(IN_PLACE_WARC.into()).into());
        }
        return warc::extract(archive, source.name(), args, dir, options, started);
    }
    match source.message() {
        Some(message) => page::extract(&message, dir, options),
        None if source.kind() == linkbase::input::InputKind::Mbox => {
            page::extract_mbox(source, dir, options)
        }
        None => Err(Fatal(
            "--extract DIR needs a WARC or ARC file, a MIME message (.eml, .mht) or an mbox, \
             as INPUT"
                .into(),
        )
        .into()),
    }
}

const IN_PLACE_WARC: &str = "--in-place does not apply to a WARC file: archives are written once; use -o OUT.warc.gz (the conversion records are added beside the originals)";

/// What a rewrite of an archive refuses: `--in-place` (archives are written once),
/// `--relative` without `--extract`, and a `-o` name compressed otherwise than the input.
fn refuse_for_archive(args: &RewriteArgs, back: WriteBack) -> Result<(), Failure> {
    let (gzip, ext, in_place, what) = match back {
        WriteBack::Conversions { gzip } => (gzip, "warc", IN_PLACE_WARC, "a WARC file"),
        WriteBack::InPlace { gzip } => (
            gzip,
            "arc",
            "--in-place does not apply to an ARC file: archives are written once; use -o OUT.arc",
            "an ARC file",
        ),
        _ => return Ok(()),
    };
    if args.in_place {
        return Err(Fatal(in_place.into()).into());
    }
    if args.relative {
        return Err(Fatal(format!(
            "--relative with {what} needs --extract DIR (links between the extracted pages become relative)"
        ))
        .into());
    }
    let Some(out) = &args.output else {
        return Ok(());
    };
    let out_gz = out.to_string_lossy().to_ascii_lowercase().ends_with(".gz");
    if out_gz == gzip {
        return Ok(());
    }
    Err(Fatal(format!(
        "{}: the output archive is written {} like the input; name it .{ext}{}",
        out.display(),
        if gzip {
            "gzip-compressed"
        } else {
            "uncompressed"
        },
        if gzip { ".gz" } else { "" }
    ))
    .into())
}

/// The end of a rewrite's summary line: what it added, where it wrote, its time.
pub(crate) fn written_tail(what: &str, args: &RewriteArgs, started: std::time::Instant) -> String {
    format!(
        "; {what}; written to {}; {:.2} s",
        match &args.output {
            Some(out) => escape_controls(&out.display().to_string()).into_owned(),
            None => "stdout".to_owned(),
        },
        started.elapsed().as_secs_f64()
    )
}

/// What writes a rewrite into its output.
type Produce<'a> = dyn FnMut(&mut dyn verb::Output) -> Result<(), linkbase::Error> + 'a;

/// The rewrite `produce` makes, to stdout, or to a temporary file renamed on success (`-o`,
/// `--in-place`: refused if the input changed since `snapshot`). Nothing is written when it
/// fails.
fn write_rewritten(
    args: &RewriteArgs,
    snapshot: Option<&fsout::Snapshot>,
    produce: &mut Produce<'_>,
) -> Result<(), Failure> {
    let input_path = Path::new(&args.input.input);
    let (path, target) = match (&args.output, args.in_place, snapshot) {
        (_, true, Some(before)) => (input_path, fsout::Target::InPlace(before)),
        (_, true, None) => {
            return Err(Fatal(format!("{}: cannot read", input_path.display())).into())
        }
        (Some(path), false, _) => (path.as_path(), fsout::Target::Output),
        (None, false, _) => {
            let mut stdout = BufWriter::with_capacity(fsout::WRITE_BUFFER, io::stdout().lock());
            produce(&mut stdout)?;
            stdout.flush()?;
            return Ok(());
        }
    };
    crate::run::write_file(path, target, |w| produce(w).map_err(Failure::from))
}
