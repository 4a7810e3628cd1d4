//! PyO3 bindings: module `talkspurt._core`. The boundary is coarse — one
//! validated scenario in, columns out — and nothing here panics across it:
//! bad input raises `ScenarioError` (a `ValueError`) carrying `path`,
//! `value` and `allowed`.

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyError, PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use talkspurt_core::quality::{self, EModelParams};
use talkspurt_core::scenario::{self, ScenarioError as CoreError};
use talkspurt_core::score::packets::Packets;
use talkspurt_core::trace::{Column, Table};
use talkspurt_core::voice::codec;

create_exception!(_core, ScenarioError, PyValueError, "A scenario is invalid: `path`, `value`, `allowed` say where and why.");

fn scenario_err(py: Python<'_>, e: CoreError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let v = err.value_bound(py);
    let _ = v.setattr("path", e.path);
    let _ = v.setattr("value", e.value);
    let _ = v.setattr("allowed", e.allowed);
    err
}

/// Little-endian bytes of `v`, written straight into a new Python bytes
/// object (no intermediate buffer).
fn le_bytes<'py, T: Copy, const N: usize>(py: Python<'py>, v: &[T], f: impl Fn(T) -> [u8; N]) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_bound_with(py, v.len() * N, |buf| {
        for (chunk, &x) in buf.chunks_exact_mut(N).zip(v) {
            chunk.copy_from_slice(&f(x));
        }
        Ok(())
    })
}

/// A column as `(dtype, payload[, categories])`: numeric columns are
/// little-endian buffers for `numpy.frombuffer`. Takes the column so its
/// memory is freed as soon as Python holds the copy: a large run's
/// per-packet table is then never held twice over.
fn column(py: Python<'_>, c: Column) -> PyResult<Bound<'_, PyTuple>> {
    let tagged = |tag: &str, payload: PyObject| PyTuple::new_bound(py, [tag.into_py(py), payload]);
    Ok(match c {
        Column::F64(v) => tagged("<f8", le_bytes(py, &v, f64::to_le_bytes)?.into_py(py)),
        Column::I64(v) => tagged("<i8", le_bytes(py, &v, i64::to_le_bytes)?.into_py(py)),
        Column::U32(v) => tagged("<u4", le_bytes(py, &v, u32::to_le_bytes)?.into_py(py)),
        Column::Bool(v) => tagged("?", le_bytes(py, &v, |x| [x as u8])?.into_py(py)),
        Column::Str(v) => tagged("str", str_list(py, v).into_py(py)),
        Column::Cat { codes, cats } => PyTuple::new_bound(
            py,
            [
                ("cat").into_py(py),
                le_bytes(py, &codes, u32::to_le_bytes)?.into_py(py),
                PyList::new_bound(py, cats).into_py(py),
            ],
        ),
    })
}

/// A string column as a list in which a run of equal values shares one
/// Python string: the calls table's group, codec, transport, playout and
/// adapt columns repeat one value per group, and 100 000 calls made
/// 500 000 string objects of them (issue 14).
fn str_list(py: Python<'_>, v: Vec<String>) -> Bound<'_, PyList> {
    let mut last: Option<(String, PyObject)> = None;
    let items = v.into_iter().map(|x| match &last {
        Some((s, o)) if *s == x => o.clone_ref(py),
        _ => {
            let o: PyObject = x.as_str().into_py(py);
            last = Some((x, o.clone_ref(py)));
            o
        }
    });
    PyList::new_bound(py, items.collect::<Vec<_>>())
}

fn table(py: Python<'_>, t: Table) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new_bound(py);
    for (name, c) in t.columns {
        d.set_item(name, column(py, c)?)?;
    }
    Ok(d)
}

/// A column's values, owned here and lent to numpy in place through the
/// array interface (`numpy.asarray(buf)`: no copy; the array keeps this
/// object alive as its base, and the memory goes with the last view). The
/// limited API of abi3-py310 has no buffer protocol, numpy's interface
/// needs none.
#[pyclass(frozen, module = "talkspurt._core")]
struct ColumnBuffer {
    /// Start of the values, taken from the owned vector while it was ours
    /// alone; Rust never reads the values again (numpy may write them).
    addr: usize,
    len: usize,
    typestr: &'static str,
    _owner: Owned,
}

#[allow(dead_code)] // held only to be dropped
enum Owned {
    F64(Vec<f64>),
    U32(Vec<u32>),
    I64(Vec<i64>),
}

impl ColumnBuffer {
    fn new(mut o: Owned) -> Self {
        let (addr, len, typestr) = match &mut o {
            Owned::F64(v) => (v.as_mut_ptr() as usize, v.len(), "<f8"),
            Owned::U32(v) => (v.as_mut_ptr() as usize, v.len(), "<u4"),
            Owned::I64(v) => (v.as_mut_ptr() as usize, v.len(), "<i8"),
        };
        ColumnBuffer { addr, len, typestr, _owner: o }
    }
}

#[pymethods]
impl ColumnBuffer {
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new_bound(py);
        d.set_item("shape", (self.len,))?;
        d.set_item("typestr", self.typestr)?;
        d.set_item("data", (self.addr, false))?;
        d.set_item("version", 3)?;
        Ok(d)
    }
    fn __len__(&self) -> usize {
        self.len
    }
}

/// A column of the packets table as `column` gives the others, numbers in
/// a `ColumnBuffer` rather than bytes (no copy).
fn lent_column(py: Python<'_>, c: Column) -> PyResult<Bound<'_, PyTuple>> {
    let lent = |tag: &str, o: Owned| -> PyResult<Bound<'_, PyTuple>> {
        Ok(PyTuple::new_bound(py, [tag.into_py(py), Bound::new(py, ColumnBuffer::new(o))?.into_py(py)]))
    };
    match c {
        Column::F64(v) => lent("<f8", Owned::F64(v)),
        Column::U32(v) => lent("<u4", Owned::U32(v)),
        Column::I64(v) => lent("<i8", Owned::I64(v)),
        Column::Cat { codes, cats } => Ok(PyTuple::new_bound(
            py,
            [
                "cat".into_py(py),
                Bound::new(py, ColumnBuffer::new(Owned::U32(codes)))?.into_py(py),
                PyList::new_bound(py, cats).into_py(py),
            ],
        )),
        other => column(py, other),
    }
}

/// The packets table, kept compact by the core (`score::packets`) and
/// built a column at a time when Python reads it
/// (`talkspurt.results._LazyColumns`).
#[pyclass(frozen, module = "talkspurt._core")]
struct PacketTable {
    inner: Packets,
}

#[pymethods]
impl PacketTable {
    /// Column names in table order.
    fn names(&self) -> Vec<&'static str> {
        self.inner.names()
    }
    /// One column as `(dtype, ColumnBuffer[, categories])`.
    fn column<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyTuple>> {
        let c = py.allow_threads(|| self.inner.column(name));
        lent_column(py, c.ok_or_else(|| PyKeyError::new_err(name.to_string()))?)
    }
    fn __len__(&self) -> usize {
        self.inner.rows()
    }
    /// Rows of each call, in table order.
    fn call_rows(&self) -> Vec<usize> {
        self.inner.call_rows()
    }
    /// The rows of calls `start..stop` of one column, as `column` gives a
    /// whole one: a writer builds row groups a slice at a time (issue 14).
    fn column_of_calls<'py>(&self, py: Python<'py>, name: &str, start: usize, stop: usize) -> PyResult<Bound<'py, PyTuple>> {
        let c = py.allow_threads(|| self.inner.column_of_calls(name, start..stop));
        lent_column(py, c.ok_or_else(|| PyKeyError::new_err(format!("{name} of calls {start}..{stop}")))?)
    }
    /// Several columns of calls `start..stop`, as `column_of_calls` gives
    /// each, in a list: the window columns (id, window_loss, window_ie)
    /// come from one pass (`Packets::columns_of_calls`).
    fn columns_of_calls<'py>(&self, py: Python<'py>, names: Vec<String>, start: usize, stop: usize) -> PyResult<Bound<'py, PyList>> {
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let cols = py.allow_threads(|| self.inner.columns_of_calls(&refs, start..stop));
        let cols = cols.ok_or_else(|| PyKeyError::new_err(format!("{} of calls {start}..{stop}", names.join(", "))))?;
        let out = PyList::empty_bound(py);
        for c in cols {
            out.append(lent_column(py, c)?)?;
        }
        Ok(out)
    }
}

fn packets_obj(py: Python<'_>, p: Option<Packets>) -> PyResult<PyObject> {
    Ok(match p {
        Some(inner) => Bound::new(py, PacketTable { inner })?.into_py(py),
        None => py.None(),
    })
}

fn parse(py: Python<'_>, scenario_json: &str) -> PyResult<scenario::Scenario> {
    scenario::from_json_str(scenario_json).map_err(|e| scenario_err(py, e))
}

/// A TOML document (a scenario file) as JSON text, keys in the order
/// written; `ScenarioError` for a syntax error (path "", one line with the
/// line and column) or a value JSON cannot carry (a date, `nan`, `inf`:
/// its key path). The front end reads files with this instead of
/// `tomllib`, which with `typing` was ~9 ms of every process's imports.
#[pyfunction]
fn toml_to_json(py: Python<'_>, text: &str) -> PyResult<String> {
    scenario::toml_doc::toml_to_json(text).map_err(|e| scenario_err(py, e))
}

/// One malloc arena for this process (glibc; `talkspurt_core::run::one_malloc_arena`):
/// for the CLI's `run`, before the core starts its scoring threads.
#[pyfunction]
fn one_malloc_arena() {
    talkspurt_core::run::one_malloc_arena();
}

/// Validate a scenario (JSON text of the scenario mapping); returns the
/// normalized scenario, every default filled in, as JSON text.
#[pyfunction]
fn validate(py: Python<'_>, scenario_json: &str) -> PyResult<String> {
    // Parsing checks everything, routes between endpoints included; it does
    // not build the world (parts of it, TCP, may not be in this build).
    let s = parse(py, scenario_json)?;
    Ok(scenario::parse::to_json(&s).to_string())
}

/// A flag another thread sets to stop a run (`run(..., interrupt=flag)`):
/// the Python side runs the core in a worker thread and sets it when the
/// main thread gets Ctrl-C (talkspurt/api.py).
#[pyclass(frozen, module = "talkspurt._core")]
struct Interrupt(std::sync::Arc<std::sync::atomic::AtomicBool>);

#[pymethods]
impl Interrupt {
    #[new]
    fn new() -> Self {
        Interrupt(Default::default())
    }
    fn set(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    fn is_set(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// Run a scenario to completion and return its tables as column buffers.
/// `progress(fraction)` is called from time to time (with the GIL held);
/// Ctrl-C aborts the run with KeyboardInterrupt.
/// `capture` lists packet-capture specs (docs/pcap.md); the files come
/// back as `captures`, a list of (name, libpcap bytes), one bytes object
/// per file. `capture_key` names the option in errors.
/// `partial`: when Ctrl-C (or `progress` raising) stops the run, score what
/// ran and return it with `completed = False` and the exception as
/// `interrupted`, instead of raising at once without scoring.
#[pyfunction]
/// `interrupt` (an `Interrupt`) stops the run once set, like Ctrl-C.
/// `defer_records`: write the calls' records on a second thread while the
/// loop runs (`run::RunOptions::defer_records`; None: on two cores or
/// more once recording proves dear); the results are the same either way.
#[pyo3(signature = (scenario_json, seed=None, trace=None, progress=None, capture=None, capture_key="capture", partial=false, interrupt=None, defer_records=None))]
fn run(
    py: Python<'_>,
    scenario_json: &str,
    seed: Option<u64>,
    trace: Option<bool>,
    progress: Option<PyObject>,
    capture: Option<Vec<String>>,
    capture_key: &str,
    partial: bool,
    interrupt: Option<PyRef<'_, Interrupt>>,
    defer_records: Option<bool>,
) -> PyResult<PyObject> {
    let flag = interrupt.map(|i| i.0.clone());
    let mut s = parse(py, scenario_json)?;
    if let Some(seed) = seed {
        s.run.seed = seed;
    }
    if let Some(t) = trace {
        s.run.trace = t;
    }
    let mut cb_err: Option<PyErr> = None;
    // With an interrupt flag and no progress callback the GIL has nothing
    // to do here: Ctrl-C reaches the core through the flag (the main thread
    // sets it, talkspurt/api.py), and signals are only handled in the main
    // thread. The run then never waits for the GIL, which another Python
    // thread may hold for long stretches.
    let needs_gil = progress.is_some() || flag.is_none();
    let result = py.allow_threads(|| {
        let mut cb = |f: f64| -> bool {
            if !needs_gil {
                return true;
            }
            Python::with_gil(|py| {
                if let Err(e) = py.check_signals() {
                    cb_err = Some(e);
                    return false;
                }
                if let Some(p) = &progress {
                    if let Err(e) = p.call1(py, (f,)) {
                        cb_err = Some(e);
                        return false;
                    }
                }
                true
            })
        };
        let opts = talkspurt_core::run::RunOptions {
            capture: capture.unwrap_or_default(),
            capture_key: capture_key.to_string(),
            partial,
            interrupt: flag.clone(),
            fold: None,
            defer_records,
        };
        talkspurt_core::run::run_with(&s, &opts, &mut cb)
    });
    if !partial {
        if let Some(e) = cb_err.take() {
            return Err(e);
        }
    }
    let out = result.map_err(|e| scenario_err(py, e))?;
    if !out.completed && !partial {
        return Err(PyKeyboardInterrupt::new_err("run interrupted"));
    }
    let interrupted: PyObject = match cb_err {
        None if !out.completed && flag.as_ref().is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed)) => {
            PyKeyboardInterrupt::new_err("run interrupted").into_py(py)
        }
        Some(e) => e.into_py(py),
        None if !out.completed => PyKeyboardInterrupt::new_err("run interrupted").into_py(py),
        None => py.None(),
    };
    let completed = out.completed;
    let r = out.report;
    let d = tables_dict(
        py,
        vec![
            ("calls", Some(r.calls)),
            ("links", Some(r.links)),
            ("traffic", Some(r.traffic)),
            ("series", Some(r.series)),
            ("groups", Some(r.groups)),
            ("bursts", Some(r.bursts)),
            ("talkspurts", r.talkspurts),
        ],
    )?;
    d.set_item("packets", packets_obj(py, r.packets)?)?;
    d.set_item("events", out.events)?;
    d.set_item("voice_packets", out.voice_packets)?;
    d.set_item("sim_end_s", out.sim_end_s)?;
    // Per call group: (largest IP packet, largest application unit) in bytes.
    d.set_item("largest", out.largest.iter().map(|l| (l.packet, l.message)).collect::<Vec<_>>())?;
    let caps = PyList::empty_bound(py);
    for (name, bytes) in out.captures {
        caps.append((name, PyBytes::new_bound(py, &bytes)))?;
    }
    d.set_item("captures", caps)?;
    d.set_item("seed", s.run.seed)?;
    d.set_item("scenario", scenario::parse::to_json(&s).to_string())?;
    d.set_item("completed", completed)?;
    d.set_item("interrupted", interrupted)?;
    trim_heap();
    Ok(d.into_py(py))
}

/// Hand the heap the run freed (its world, the records scoring consumed)
/// back to the system. glibc keeps freed chunks mapped below its top, so
/// without this the run's peak stayed resident under whatever the process
/// did next: `talkspurt.run()` then `res.calls` (which imports pandas)
/// peaked at run + pandas, 144 MB on bench/tcp_mix_big.toml, instead of
/// max(run, pandas) (bench/README.md, Memory; issue 26 targets 1, 2).
fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> std::os::raw::c_int;
        }
        // SAFETY: malloc_trim only returns free pages to the kernel; it
        // takes the allocator's own locks.
        unsafe {
            malloc_trim(0);
        }
    }
}

fn tables_dict<'py>(py: Python<'py>, named: Vec<(&str, Option<Table>)>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new_bound(py);
    for (name, t) in named {
        match t {
            Some(t) => d.set_item(name, table(py, t)?)?,
            None => d.set_item(name, py.None())?,
        }
    }
    Ok(d)
}

/// A little-endian numeric column from a dict of `bytes`.
fn le_column<T, const N: usize>(d: &Bound<'_, PyDict>, table: &str, key: &str, f: fn([u8; N]) -> T) -> PyResult<Vec<T>> {
    let v = d.get_item(key)?.ok_or_else(|| PyValueError::new_err(format!("{table}: missing column {key:?}")))?;
    let b: &[u8] = v.downcast::<PyBytes>().map_err(|_| PyValueError::new_err(format!("{table}.{key}: expected bytes")))?.as_bytes();
    if b.len() % N != 0 {
        return Err(PyValueError::new_err(format!("{table}.{key}: {} bytes is not a whole number of {N}-byte values", b.len())));
    }
    Ok(b.chunks_exact(N).map(|c| f(c.try_into().expect("chunk of N bytes"))).collect())
}

fn str_column(d: &Bound<'_, PyDict>, table: &str, key: &str) -> PyResult<Vec<String>> {
    let v = d.get_item(key)?.ok_or_else(|| PyValueError::new_err(format!("{table}: missing column {key:?}")))?;
    v.extract().map_err(|_| PyValueError::new_err(format!("{table}.{key}: expected a list of strings")))
}

/// Score a finished run again under the scenario `scenario_json` (the
/// scenario as run with new playout buffers, advantage factors or
/// `[analysis]`), from the calls table's identifying columns and the packets
/// table's columns (numeric columns as little-endian bytes: call, talkspurt,
/// frames, payload_bytes and fate codes u32; times f64 seconds).
#[pyfunction]
#[pyo3(signature = (scenario_json, calls, packets, trace=true))]
fn rescore(py: Python<'_>, scenario_json: &str, calls: &Bound<'_, PyDict>, packets: &Bound<'_, PyDict>, trace: bool) -> PyResult<PyObject> {
    use talkspurt_core::rescore::{rescore as core_rescore, CallColumns, PacketColumns};
    let s = parse(py, scenario_json)?;
    let f8 = f64::from_le_bytes;
    let u4 = u32::from_le_bytes;
    let (group, codec) = (str_column(calls, "calls", "group")?, str_column(calls, "calls", "codec")?);
    let (ptime_ms, start_s, stop_s) =
        (le_column(calls, "calls", "ptime_ms", f8)?, le_column(calls, "calls", "start_s", f8)?, le_column(calls, "calls", "stop_s", f8)?);
    let col_u4 = |k: &str| le_column(packets, "packets", k, u4);
    let col_f8 = |k: &str| le_column(packets, "packets", k, f8);
    let (call, talkspurt, frames, payload, fate) =
        (col_u4("call")?, col_u4("talkspurt")?, col_u4("frames")?, col_u4("payload_bytes")?, col_u4("fate")?);
    let (t_generated, t_sent, t_arrived) = (col_f8("t_generated")?, col_f8("t_sent")?, col_f8("t_arrived")?);
    let out = py
        .allow_threads(|| {
            let c = CallColumns { group: &group, codec: &codec, ptime_ms: &ptime_ms, start_s: &start_s, stop_s: &stop_s };
            let p = PacketColumns {
                call: &call,
                talkspurt: &talkspurt,
                frames: &frames,
                payload_bytes: &payload,
                t_generated: &t_generated,
                t_sent: &t_sent,
                t_arrived: &t_arrived,
                fate: &fate,
            };
            core_rescore(&s, &c, &p, trace)
        })
        .map_err(PyValueError::new_err)?;
    let d = tables_dict(
        py,
        vec![
            ("calls", Some(out.calls)),
            ("groups", Some(out.groups)),
            ("bursts", Some(out.bursts)),
            ("talkspurts", out.talkspurts),
        ],
    )?;
    d.set_item("packets", packets_obj(py, out.packets)?)?;
    d.set_item("scenario", scenario::parse::to_json(&s).to_string())?;
    trim_heap();
    Ok(d.into_py(py))
}

const EMODEL_KEYS: &[&str] = &[
    "SLR", "RLR", "STMR", "LSTR", "Ds", "Dr", "TELR", "WEPL", "T", "Ta", "Tr", "qdu", "Ie", "Bpl", "Ppl", "BurstR",
    "Nc", "Nfor", "Ps", "Pr", "A",
];

/// ITU-T G.107 E-model with keyword parameters named as in the
/// Recommendation; unspecified parameters take the Table 3 defaults.
/// `extended=True` accepts values beyond Table 3's ranges (extrapolated).
#[pyfunction]
#[pyo3(signature = (extended=false, **kwargs))]
fn emodel(py: Python<'_>, extended: bool, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<PyObject> {
    let mut p = EModelParams::default();
    if let Some(kw) = kwargs {
        for (k, v) in kw.iter() {
            let key: String = k.extract()?;
            let x: f64 = v.extract().map_err(|_| PyValueError::new_err(format!("{key}: expected a number, got {v}")))?;
            let slot = match key.as_str() {
                "SLR" => &mut p.slr, "RLR" => &mut p.rlr, "STMR" => &mut p.stmr, "LSTR" => &mut p.lstr,
                "Ds" => &mut p.ds, "Dr" => &mut p.dr, "TELR" => &mut p.telr, "WEPL" => &mut p.wepl,
                "T" => &mut p.t, "Ta" => &mut p.ta, "Tr" => &mut p.tr, "qdu" => &mut p.qdu,
                "Ie" => &mut p.ie, "Bpl" => &mut p.bpl, "Ppl" => &mut p.ppl, "BurstR" => &mut p.burst_r,
                "Nc" => &mut p.nc, "Nfor" => &mut p.nfor, "Ps" => &mut p.ps, "Pr" => &mut p.pr, "A" => &mut p.a,
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "unknown E-model parameter {key:?}; expected one of {}",
                        EMODEL_KEYS.join(", ")
                    )))
                }
            };
            *slot = x;
        }
    }
    let r = if extended { quality::emodel_extended(&p) } else { quality::emodel(&p) }.map_err(PyValueError::new_err)?;
    let d = PyDict::new_bound(py);
    for (k, v) in [
        ("R", r.r), ("MOS", r.mos), ("Ro", r.ro), ("No", r.no), ("Is", r.is), ("Iolr", r.iolr), ("Ist", r.ist),
        ("Iq", r.iq), ("Id", r.id), ("Idte", r.idte), ("Idle", r.idle), ("Idd", r.idd), ("Ie_eff", r.ie_eff),
    ] {
        d.set_item(k, v)?;
    }
    Ok(d.into_py(py))
}

/// Cole–Rosenbluth simplified E-model (seed 000 §4.2): R = 94.2 − Ie − Id.
#[pyfunction]
#[pyo3(signature = (loss, delay_ms, codec="G.711"))]
fn emodel_simplified(loss: f64, delay_ms: f64, codec: &str) -> PyResult<f64> {
    let c = codec::lookup(codec)
        .ok_or_else(|| PyValueError::new_err(format!("codec: got {codec:?}; expected one of {}", codec::names().join(", "))))?;
    let l = c.lambda.ok_or_else(|| {
        PyValueError::new_err(format!("codec: {codec} has no Cole–Rosenbluth coefficients; expected G.711, G.729 or G.729A+VAD"))
    })?;
    quality::r_simplified(l, loss, delay_ms).map_err(PyValueError::new_err)
}

#[pyfunction]
fn mos_from_r(r: f64) -> f64 {
    quality::mos_from_r(r)
}

/// A duration as scenario files write it (`"20ms"`), in nanoseconds: the
/// core's one parser (`scenario::units::parse_duration`), so that the
/// keys Python reads (`[analysis] audio`, the VAD's `hangover`) follow
/// the rule and the messages of every other duration. ValueError with the
/// `allowed` text on failure; the caller adds the key path and the value.
#[pyfunction]
fn parse_duration(text: &str) -> PyResult<u64> {
    talkspurt_core::scenario::units::parse_duration(text).map(|d| d.as_nanos()).map_err(PyValueError::new_err)
}

/// Canonical text of a duration in nanoseconds (`"1.5s"`, `"20ms"`), exact.
#[pyfunction]
fn format_duration(ns: u64) -> String {
    talkspurt_core::scenario::units::format_duration(talkspurt_core::time::SimDuration(ns))
}

/// The codec table: name, frame ms, frame bytes, look-ahead ms, bit rate, Ie, Bpl.
#[pyfunction]
fn codecs(py: Python<'_>) -> PyResult<PyObject> {
    let l = PyList::empty_bound(py);
    for c in codec::CODECS {
        let d = PyDict::new_bound(py);
        let (ie, bpl) = quality::codec_impairment(c.emodel_key).unwrap_or((f64::NAN, f64::NAN));
        d.set_item("name", c.name)?;
        d.set_item("frame_ms", c.frame.as_millis_f64())?;
        d.set_item("frame_bytes", c.frame_bytes)?;
        d.set_item("lookahead_ms", c.lookahead.as_millis_f64())?;
        d.set_item("bitrate_bps", c.bitrate_bps())?;
        d.set_item("Ie", ie)?;
        d.set_item("Bpl", bpl)?;
        d.set_item("Bpl_packet_ms", quality::bpl_packet_ms(c.emodel_key).unwrap_or(f64::NAN))?;
        l.append(d)?;
    }
    Ok(l.into_py(py))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type_bound::<ScenarioError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The commit built from (build.rs), "" when not built from a checkout.
    m.add("__git_commit__", env!("TALKSPURT_GIT_COMMIT"))?;
    m.add("FATES", talkspurt_core::trace::packets::FATES.to_vec())?;
    m.add("TRANSPORT_CALL_COLUMNS", talkspurt_core::run::report::TRANSPORT_CALL_COLUMNS.to_vec())?;
    m.add_class::<ColumnBuffer>()?;
    m.add_class::<PacketTable>()?;
    m.add_class::<Interrupt>()?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(toml_to_json, m)?)?;
    m.add_function(wrap_pyfunction!(one_malloc_arena, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(rescore, m)?)?;
    m.add_function(wrap_pyfunction!(emodel, m)?)?;
    m.add_function(wrap_pyfunction!(emodel_simplified, m)?)?;
    m.add_function(wrap_pyfunction!(mos_from_r, m)?)?;
    m.add_function(wrap_pyfunction!(codecs, m)?)?;
    m.add_function(wrap_pyfunction!(parse_duration, m)?)?;
    m.add_function(wrap_pyfunction!(format_duration, m)?)?;
    Ok(())
}
