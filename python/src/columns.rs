//! Link rows in Arrow's columnar layout, built in Rust for `read_warc(...)`'s batches:
//! no Python object per link.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// A batch's string column in Arrow's layout (the `utf8` type): validity bitmap, 32-bit
/// offsets, data.
#[derive(Default)]
struct StringColumn {
    validity: Vec<u8>,
    offsets: Vec<u8>,
    data: Vec<u8>,
    nulls: usize,
}

/// A batch's boolean column in Arrow's layout: validity and value bitmaps.
#[derive(Default)]
struct BoolColumn {
    validity: Vec<u8>,
    values: Vec<u8>,
    nulls: usize,
}

/// Sets bit `row` of an Arrow bitmap (least significant bit first), growing it.
fn set_bit(bitmap: &mut Vec<u8>, row: usize, value: bool) {
    if row % 8 == 0 {
        bitmap.push(0);
    }
    if let (true, Some(byte)) = (value, bitmap.last_mut()) {
        *byte |= 1 << (row % 8);
    }
}

impl StringColumn {
    fn push(&mut self, row: usize, value: Option<&str>) -> PyResult<()> {
        if self.offsets.is_empty() {
            self.offsets.extend_from_slice(&0i32.to_le_bytes());
        }
        set_bit(&mut self.validity, row, value.is_some());
        match value {
            Some(v) => self.data.extend_from_slice(v.as_bytes()),
            None => self.nulls += 1,
        }
        let end = i32::try_from(self.data.len())
            .map_err(|_| crate::Error::new_err("a batch column passed 2 GiB"))?;
        self.offsets.extend_from_slice(&end.to_le_bytes());
        Ok(())
    }
}

/// The link table's string columns, in order, around `same_document` (the 11th column).
const STRING_COLUMNS: usize = 11;

/// Link rows in Arrow's columnar layout, for `_next_columns`.
#[derive(Default)]
pub(crate) struct LinkColumns {
    pub(crate) rows: usize,
    strings: [StringColumn; STRING_COLUMNS],
    same_document: BoolColumn,
}

fn kind_name(kind: linkbase::LinkKind) -> &'static str {
    use linkbase::LinkKind as K;
    match kind {
        K::Url => "url",
        K::Srcset => "srcset",
        K::List => "list",
        K::Refresh => "refresh",
        K::Css => "css",
        K::CssImport => "css-import",
        K::ConditionalComment => "conditional-comment",
    }
}

impl LinkColumns {
    /// One row: the record's WARC fields, then the link's (linkbase.spark.COLUMNS).
    pub(crate) fn push(
        &mut self,
        record: &linkbase::archive::RecordRef,
        link: &linkbase::LinkRecord,
    ) -> PyResult<()> {
        let row = self.rows;
        let values: [Option<&str>; STRING_COLUMNS] = [
            record.warc_target_uri.as_deref(),
            record.warc_record_id.as_deref(),
            record.warc_date.as_deref(),
            Some(&link.element),
            link.attribute.as_deref(),
            Some(&link.original),
            link.resolved.as_deref(),
            link.base.as_deref(),
            Some(link.base_source.name()),
            Some(kind_name(link.kind)),
            link.diagnostic.as_deref(),
        ];
        for (column, value) in self.strings.iter_mut().zip(values) {
            column.push(row, value)?;
        }
        set_bit(&mut self.same_document.validity, row, true);
        set_bit(&mut self.same_document.values, row, link.same_document);
        self.rows += 1;
        Ok(())
    }

    pub(crate) fn bytes(&self) -> usize {
        self.strings.iter().map(|c| c.data.len()).sum()
    }

    /// `(rows, columns)`: per column `(null_count, buffers)`, the buffers as Arrow's
    /// `Array.from_buffers` takes them (validity first; None when there is no null).
    #[allow(clippy::type_complexity)]
    pub(crate) fn into_py<'py>(
        self,
        py: Python<'py>,
    ) -> (usize, Vec<(usize, Vec<Option<Bound<'py, PyBytes>>>)>) {
        let validity = |nulls: usize, bitmap: &[u8]| (nulls > 0).then(|| PyBytes::new(py, bitmap));
        let mut columns: Vec<_> = self
            .strings
            .iter()
            .map(|c| {
                (
                    c.nulls,
                    vec![
                        validity(c.nulls, &c.validity),
                        Some(PyBytes::new(py, &c.offsets)),
                        Some(PyBytes::new(py, &c.data)),
                    ],
                )
            })
            .collect();
        let b = &self.same_document;
        columns.insert(
            10,
            (
                b.nulls,
                vec![
                    validity(b.nulls, &b.validity),
                    Some(PyBytes::new(py, &b.values)),
                ],
            ),
        );
        (self.rows, columns)
    }
}
