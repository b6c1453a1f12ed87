//! Python bindings of the NES machine (`nestor._nestor`): one console, and a batch of consoles
//! stepped on threads with the GIL released. The Gymnasium environments are Python, in
//! `python/nestor`.

use ai::controller::{search_start, ControllerSearch, Lock, Pad};
use ai::driver::{self, InPlay};
use ai::eval::Profile;
use ai::placement::PlacementSearch;
use ai::planner::{Planner, SearchKind};
use ai::rules::{buttons::DOWN, Board, Control, Piece};
use nes::ppu::palette::Palette;
use nes::ppu::{HEIGHT, WIDTH};
use nes::{Buttons, Cartridge};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyIndexError, PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes};
use std::mem::MaybeUninit;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

mod pool;
use pool::Pool;

/// The project's own NES Tetris-compatible game, the default ROM.
const QUADFALL: &[u8] = include_bytes!("../../../roms/quadfall.nes");
const RAM_SIZE: usize = 0x800;
/// ROM files are small; anything larger is not one (and is not read into memory whole).
const MAX_ROM_BYTES: u64 = 64 << 20;

fn palette() -> &'static Palette {
    static PALETTE: OnceLock<Palette> = OnceLock::new();
    PALETTE.get_or_init(Palette::default)
}

/// The cartridge from `rom`: None (Quadfall), bytes-like (an iNES image) or a path.
fn load_cartridge(rom: Option<&Bound<'_, PyAny>>) -> PyResult<Cartridge> {
    let (name, bytes) = match rom {
        None => ("quadfall.nes".to_string(), QUADFALL.to_vec()),
        Some(rom) if rom.is_instance_of::<PyBytes>() || rom.is_instance_of::<PyByteArray>() => {
            ("ROM bytes".to_string(), rom.extract::<Vec<u8>>()?)
        }
        Some(rom) => {
            let path: PathBuf = rom.extract().map_err(|_| {
                PyTypeError::new_err("rom must be None, a path or bytes (an iNES image)")
            })?;
            let name = path.display().to_string();
            let bytes = read_rom(&path).map_err(PyOSError::new_err)?;
            (name, bytes)
        }
    };
    Cartridge::from_ines(&bytes).map_err(|e| PyValueError::new_err(format!("{name}: {e}")))
}

fn read_rom(path: &std::path::Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let cannot = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .map_err(cannot)?
        .take(MAX_ROM_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_ROM_BYTES {
        return Err(format!("{}: too large to be a NES ROM", path.display()));
    }
    Ok(bytes)
}

fn buttons(mask: i64) -> PyResult<Buttons> {
    u8::try_from(mask)
        .map(Buttons)
        .map_err(|_| PyValueError::new_err(format!("button mask {mask} is not in 0-255")))
}

fn address(addr: i64) -> PyResult<u16> {
    u16::try_from(addr)
        .map_err(|_| PyValueError::new_err(format!("address {addr} is not in 0-0xFFFF")))
}

fn byte(value: i64) -> PyResult<u8> {
    u8::try_from(value)
        .map_err(|_| PyValueError::new_err(format!("value {value} is not a byte (0-255)")))
}

/// Size of a picture as RGB bytes.
const RGB_BYTES: usize = WIDTH * HEIGHT * 3;

/// Writes every byte of `out` (RGB_BYTES long): the picture as RGB bytes, row after row.
fn rgb(console: &nes::Console, out: &mut [MaybeUninit<u8>]) {
    let palette = palette();
    for (rgb, &pixel) in out.chunks_exact_mut(3).zip(console.frame_buffer()) {
        for (byte, value) in rgb.iter_mut().zip(palette.rgb(pixel)) {
            byte.write(value);
        }
    }
}

/// `n` pictures' bytes as `fill` writes them with [`rgb`], one picture after another, with no
/// pass that zeroes them first (for a batch of 8, 1.5 MB the calling thread would clear alone).
fn pictures(n: usize, fill: impl FnOnce(&mut [MaybeUninit<u8>])) -> Vec<u8> {
    let len = n * RGB_BYTES;
    let mut bytes = Vec::with_capacity(len);
    fill(&mut bytes.spare_capacity_mut()[..len]);
    // SAFETY: `fill` returned, so `rgb` wrote every byte of each of the `n` pictures.
    unsafe { bytes.set_len(len) };
    bytes
}

/// RGB bytes moved (not copied) into a NumPy array of `shape`.
fn to_array<'py>(py: Python<'py>, bytes: Vec<u8>, shape: &[usize]) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyArray1::from_vec(py, bytes).reshape(shape)?.into_any())
}

/// One NES. Buttons are a mask in the controller's bit order: A=1, B=2, Select=4, Start=8,
/// Up=16, Down=32, Left=64, Right=128.
#[pyclass(module = "nestor")]
struct Console {
    inner: nes::Console,
}

#[pymethods]
impl Console {
    #[new]
    #[pyo3(signature = (rom=None))]
    fn new(rom: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        Ok(Console {
            inner: nes::Console::new(load_cartridge(rom)?),
        })
    }

    /// Holds `buttons` on controller 1 (and `buttons2` on controller 2) for `frames` frames,
    /// the GIL released.
    #[pyo3(signature = (buttons=0, buttons2=0, frames=1))]
    fn step(&mut self, py: Python<'_>, buttons: i64, buttons2: i64, frames: u32) -> PyResult<()> {
        let (one, two) = (self::buttons(buttons)?, self::buttons(buttons2)?);
        self.inner.set_buttons(0, one);
        self.inner.set_buttons(1, two);
        self.run_frame(py, frames);
        Ok(())
    }

    /// Runs `frames` frames with the buttons held before, the GIL released.
    #[pyo3(signature = (frames=1))]
    fn run_frame(&mut self, py: Python<'_>, frames: u32) {
        let console = &mut self.inner;
        py.detach(|| {
            for _ in 0..frames {
                console.run_frame();
            }
        });
    }

    /// Sets the buttons held on controller `port` (0 or 1).
    #[pyo3(signature = (buttons, port=0))]
    fn set_buttons(&mut self, buttons: i64, port: usize) -> PyResult<()> {
        if port > 1 {
            return Err(PyValueError::new_err(format!("port {port} is not 0 or 1")));
        }
        self.inner.set_buttons(port, self::buttons(buttons)?);
        Ok(())
    }

    /// The picture: a new 240x256x3 uint8 array (the 2C02 palette applied).
    fn frame<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let out = pictures(1, |out| rgb(&self.inner, out));
        to_array(py, out, &[HEIGHT, WIDTH, 3])
    }

    /// The picture as the PPU makes it: 240x256 uint16 palette indices, emphasis in bits 6-8.
    fn frame_indices<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let indices = self.inner.frame_buffer().to_vec();
        Ok(PyArray1::from_vec(py, indices)
            .reshape([HEIGHT, WIDTH])?
            .into_any())
    }

    /// The 2 KiB of work RAM, live: index, slice and assign it like a bytearray.
    #[getter]
    fn ram(slf: Py<Self>) -> Ram {
        Ram { console: slf }
    }

    /// Reads CPU memory at `addr` (0-0xFFFF) without side effects.
    fn read(&self, addr: i64) -> PyResult<u8> {
        Ok(self.inner.peek(address(addr)?))
    }

    /// Writes CPU memory as the CPU would (registers react), without spending a cycle.
    fn write(&mut self, addr: i64, value: i64) -> PyResult<()> {
        self.inner.write(address(addr)?, byte(value)?);
        Ok(())
    }

    fn save_state<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.save_state())
    }

    /// Restores a state from `save_state` (of the same ROM); on error the console is untouched.
    fn load_state(&mut self, state: &[u8]) -> PyResult<()> {
        self.inner
            .load_state(state)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// Presses the reset button (RAM is kept).
    fn reset(&mut self) {
        self.inner.reset();
    }

    /// Turns the console off and on.
    fn power_cycle(&mut self) {
        self.inner.power_cycle();
    }

    /// The sound made since the last call: mono int16 samples at `sample_rate`.
    fn audio<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i16>> {
        let mut samples = Vec::new();
        self.inner.take_samples(&mut samples);
        PyArray1::from_vec(py, samples)
    }

    #[getter]
    fn sample_rate(&self) -> f64 {
        self.inner.sample_rate()
    }

    /// Frames run since power-on.
    #[getter]
    fn frame_count(&self) -> u64 {
        self.inner.frame_number()
    }
}

/// A live view of a console's 2 KiB of RAM.
#[pyclass(module = "nestor")]
struct Ram {
    console: Py<Console>,
}

/// The RAM range a Python index or slice covers: (start, step, count).
fn ram_range(index: &Bound<'_, PyAny>) -> PyResult<(usize, isize, usize)> {
    if let Ok(slice) = index.cast::<pyo3::types::PySlice>() {
        let s = slice.indices(RAM_SIZE as isize)?;
        return Ok((s.start as usize, s.step, s.slicelength));
    }
    let i: isize = index
        .extract()
        .map_err(|_| PyTypeError::new_err("RAM indices are integers or slices"))?;
    let at = if i < 0 { i + RAM_SIZE as isize } else { i };
    if !(0..RAM_SIZE as isize).contains(&at) {
        return Err(PyIndexError::new_err(format!(
            "RAM index {i} is not in 0-0x7FF"
        )));
    }
    Ok((at as usize, 1, 1))
}

fn positions(start: usize, step: isize, count: usize) -> impl Iterator<Item = usize> {
    (0..count).map(move |k| (start as isize + k as isize * step) as usize)
}

#[pymethods]
impl Ram {
    fn __len__(&self) -> usize {
        RAM_SIZE
    }

    fn __getitem__(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let console = self.console.try_borrow(py)?;
        let ram = console.inner.ram();
        if index.is_instance_of::<pyo3::types::PySlice>() {
            let (start, step, count) = ram_range(index)?;
            let bytes: Vec<u8> = positions(start, step, count).map(|i| ram[i]).collect();
            return Ok(PyBytes::new(py, &bytes).into_any().unbind());
        }
        let (at, _, _) = ram_range(index)?;
        Ok(ram[at].into_pyobject(py)?.into_any().unbind())
    }

    fn __setitem__(
        &self,
        py: Python<'_>,
        index: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let (start, step, count) = ram_range(index)?;
        let values: Vec<u8> = if index.is_instance_of::<pyo3::types::PySlice>() {
            let values: Vec<i64> = value.extract()?;
            if values.len() != count {
                return Err(PyValueError::new_err(format!(
                    "{} values for a RAM slice of {count}",
                    values.len()
                )));
            }
            values.into_iter().map(byte).collect::<PyResult<_>>()?
        } else {
            vec![byte(value.extract()?)?]
        };
        let mut console = self.console.try_borrow_mut(py)?;
        for (i, v) in positions(start, step, count).zip(values) {
            console.inner.ram_mut()[i] = v;
        }
        Ok(())
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, self.console.try_borrow(py)?.inner.ram()))
    }

    /// A copy as a uint8 array (`numpy.asarray(console.ram)`).
    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__<'py>(
        &self,
        py: Python<'py>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if copy == Some(false) {
            return Err(PyValueError::new_err(
                "console.ram cannot be viewed without a copy",
            ));
        }
        let array = PyArray1::from_slice(py, self.console.try_borrow(py)?.inner.ram()).into_any();
        match dtype {
            Some(dtype) => array.call_method1("astype", (dtype,)),
            None => Ok(array),
        }
    }
}

/// Consoles stepped together, each on its own controller input, by the calling thread and a
/// pool of `threads - 1` threads kept for the object's life, with the GIL released. Results come
/// back as batched arrays.
#[pyclass(module = "nestor")]
struct VecConsole {
    consoles: Vec<CacheLines<nes::Console>>,
    pool: Pool,
}

/// A value alone in its cache lines (and their neighbours, which x86 cores fetch in pairs):
/// written by one thread, it slows no other thread's writes to the values beside it.
#[repr(align(128))]
struct CacheLines<T>(T);

/// One console's part of a batch step: the console, its buttons, and where its RAM and picture go.
struct Job<'a> {
    console: &'a mut nes::Console,
    pad: u8,
    ram: &'a mut [u8],
    pixels: Option<&'a mut [MaybeUninit<u8>]>,
}

impl Job<'_> {
    fn run(&mut self, frames: u32) {
        self.console.set_buttons(0, Buttons(self.pad));
        for _ in 0..frames {
            self.console.run_frame();
        }
        self.ram.copy_from_slice(self.console.ram());
        if let Some(pixels) = self.pixels.as_deref_mut() {
            rgb(self.console, pixels);
        }
    }
}

/// Steps every console `frames` frames and writes their RAM (and pictures). Each of the
/// threads (the caller is the first) owns a run of consoles, the same every step so that their
/// state stays in its core's cache, and steps them one at a time; once its own are done it
/// takes those another has not started yet, so a console with costlier frames holds up no one.
fn step_batch(
    consoles: &mut [CacheLines<nes::Console>],
    buttons: &[u8],
    frames: u32,
    pool: &Pool,
    ram: &mut [u8],
    pixels: Option<&mut [MaybeUninit<u8>]>,
) {
    let mut pictures = pixels.map(|p| p.chunks_mut(RGB_BYTES));
    let jobs: Vec<Mutex<Job>> = consoles
        .iter_mut()
        .zip(buttons)
        .zip(ram.chunks_mut(RAM_SIZE))
        .map(|((console, &pad), ram)| {
            let pixels = pictures.as_mut().and_then(|p| p.next());
            Mutex::new(Job {
                console: &mut console.0,
                pad,
                ram,
                pixels,
            })
        })
        .collect();
    let runs: Vec<&[Mutex<Job>]> = jobs.chunks(jobs.len().div_ceil(pool.threads())).collect();
    // The index of each run's next job to start.
    let next: Vec<CacheLines<AtomicUsize>> = runs
        .iter()
        .map(|_| CacheLines(AtomicUsize::new(0)))
        .collect();
    pool.run(&|thread| {
        for run in (0..runs.len()).map(|r| (thread + r) % runs.len()) {
            while let Some(job) = runs[run].get(next[run].0.fetch_add(1, Ordering::Relaxed)) {
                job.lock().expect("a job is taken once").run(frames);
            }
        }
    });
}

impl VecConsole {
    fn console_index(&self, i: usize) -> PyResult<usize> {
        if i < self.consoles.len() {
            Ok(i)
        } else {
            Err(PyIndexError::new_err(format!(
                "console {i} is not in 0-{}",
                self.consoles.len() - 1
            )))
        }
    }
}

#[pymethods]
impl VecConsole {
    #[new]
    #[pyo3(signature = (n, rom=None, threads=None))]
    fn new(n: usize, rom: Option<&Bound<'_, PyAny>>, threads: Option<usize>) -> PyResult<Self> {
        if n == 0 {
            return Err(PyValueError::new_err(
                "a VecConsole needs at least one console",
            ));
        }
        let cart = load_cartridge(rom)?;
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        let threads = threads.unwrap_or(cores);
        if threads == 0 {
            return Err(PyValueError::new_err("threads must be at least 1"));
        }
        let pool = Pool::new(threads)
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start {threads} threads: {e}")))?;
        Ok(VecConsole {
            consoles: (0..n)
                .map(|_| CacheLines(nes::Console::new(cart.clone())))
                .collect(),
            pool,
        })
    }

    fn __len__(&self) -> usize {
        self.consoles.len()
    }

    #[getter]
    fn threads(&self) -> usize {
        self.pool.threads()
    }

    /// Holds `buttons[i]` on console i's controller 1 for `frames` frames, on all consoles at
    /// once. Returns the RAM of each (n x 2048 uint8) and, with `pixels`, the pictures
    /// (n x 240 x 256 x 3 uint8), else None.
    #[pyo3(signature = (buttons, frames=1, pixels=false))]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        buttons: Vec<i64>,
        frames: u32,
        pixels: bool,
    ) -> PyResult<(Bound<'py, PyAny>, Option<Bound<'py, PyAny>>)> {
        let n = self.consoles.len();
        if buttons.len() != n {
            return Err(PyValueError::new_err(format!(
                "{} button masks for {n} consoles",
                buttons.len()
            )));
        }
        let pads: Vec<u8> = buttons
            .into_iter()
            .map(|b| self::buttons(b).map(|b| b.0))
            .collect::<PyResult<_>>()?;
        let mut ram = vec![0; n * RAM_SIZE];
        let (consoles, pool) = (&mut self.consoles, &self.pool);
        let mut step = |pictures: Option<&mut [MaybeUninit<u8>]>| {
            py.detach(|| step_batch(consoles, &pads, frames, pool, &mut ram, pictures))
        };
        let picture = if pixels {
            Some(self::pictures(n, |out| step(Some(out))))
        } else {
            step(None);
            None
        };
        let ram = to_array(py, ram, &[n, RAM_SIZE])?;
        let picture = match picture {
            Some(p) => Some(to_array(py, p, &[n, HEIGHT, WIDTH, 3])?),
            None => None,
        };
        Ok((ram, picture))
    }

    fn save_state<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyBytes>> {
        let i = self.console_index(i)?;
        Ok(PyBytes::new(py, &self.consoles[i].0.save_state()))
    }

    fn load_state(&mut self, i: usize, state: &[u8]) -> PyResult<()> {
        let i = self.console_index(i)?;
        self.consoles[i]
            .0
            .load_state(state)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    fn read(&self, i: usize, addr: i64) -> PyResult<u8> {
        let i = self.console_index(i)?;
        Ok(self.consoles[i].0.peek(address(addr)?))
    }

    fn write(&mut self, i: usize, addr: i64, value: i64) -> PyResult<()> {
        let i = self.console_index(i)?;
        self.consoles[i].0.write(address(addr)?, byte(value)?);
        Ok(())
    }
}

const ORIENTATIONS: u8 = 19;

/// The AI's board from 20 rows of 10 cells (nonzero = filled), after checking `ids` are
/// orientation IDs.
fn ai_board(board: &[Vec<i64>], ids: &[u8]) -> PyResult<Board> {
    if board.len() != 20 || board.iter().any(|row| row.len() != 10) {
        return Err(PyValueError::new_err("board must be 20 rows of 10 cells"));
    }
    if ids.iter().any(|&id| id >= ORIENTATIONS) {
        return Err(PyValueError::new_err("orientation IDs are 0-18"));
    }
    let mut cells = Board::default();
    for (y, row) in (0..).zip(board) {
        for (x, &cell) in (0..).zip(row) {
            if cell != 0 {
                cells.set(x, y);
            }
        }
    }
    Ok(cells)
}

fn profile(name: &str) -> PyResult<Profile> {
    Profile::by_name(name).ok_or_else(|| {
        PyValueError::new_err(format!("profile {name:?} is not \"strong\" or \"classic\""))
    })
}

/// Every lock position (x, y, orientation ID) that `piece` (an orientation ID, 0-18) can
/// reach from its spawn point on `board` (20 rows of 10 cells, nonzero = filled), gravity
/// ignored; empty when it cannot spawn.
#[pyfunction]
fn placements(board: Vec<Vec<i64>>, piece: u8) -> PyResult<Vec<(i8, i8, u8)>> {
    let cells = ai_board(&board, &[piece])?;
    let mut locks = Vec::new();
    PlacementSearch::default().search(&cells, piece, &mut locks);
    Ok(locks.iter().map(|p| (p.x, p.y, p.id)).collect())
}

/// Where the native AI puts `piece` (an orientation ID, 0-18, searched from its spawn point)
/// on `board` (20 rows of 10 cells, nonzero = filled), rating the preview piece `next` too when
/// given: (x, y, orientation ID) of the lock position, or None when the piece has no place.
#[pyfunction]
#[pyo3(signature = (board, piece, next=None, level=0, profile="strong"))]
fn best_placement(
    py: Python<'_>,
    board: Vec<Vec<i64>>,
    piece: u8,
    next: Option<u8>,
    level: u8,
    profile: &str,
) -> PyResult<Option<(i8, i8, u8)>> {
    let cells = ai_board(&board, &[piece, next.unwrap_or(piece)])?;
    let mut planner =
        Planner::new(self::profile(profile)?, SearchKind::Placement).expect("no tap rate to check");
    let decision =
        py.detach(|| planner.decide(&cells, level, Control::spawned(piece, 0), Pad::idle(), next));
    Ok(decision.map(|d| (d.target.x, d.target.y, d.target.id)))
}

/// Where the piece in play can lock, reached with real controller inputs under gravity (the
/// native AI's frame-exact controller search at `tap_hz` presses a second), and the play of one
/// of them in a console, frame by frame.
#[pyclass(module = "nestor")]
struct PiecePlayer {
    search: ControllerSearch,
    planner: Planner,
    /// The piece in play at the last search (None: none was), the input of its first frame
    /// when it hangs until Down, its lock positions and their plans in the listed order.
    searched: Option<InPlay>,
    prefix: Vec<u8>,
    pieces: Vec<Piece>,
    locks: Vec<Lock>,
}

impl PiecePlayer {
    /// The console's piece in play, if it is the one searched last.
    fn searched_in(&self, console: &nes::Console) -> PyResult<Option<InPlay>> {
        let now = driver::piece_in_play(console);
        if now != self.searched {
            return Err(PyValueError::new_err(
                "the console is not where it was searched: call search first",
            ));
        }
        Ok(now)
    }
}

#[pymethods]
impl PiecePlayer {
    #[new]
    #[pyo3(signature = (tap_hz=30, profile="strong"))]
    fn new(tap_hz: u32, profile: &str) -> PyResult<Self> {
        let unsupported =
            || PyValueError::new_err(format!("tap rate {tap_hz} Hz is not 30, 20, 15, 12 or 10"));
        Ok(PiecePlayer {
            search: ControllerSearch::new(tap_hz).ok_or_else(unsupported)?,
            planner: Planner::new(self::profile(profile)?, SearchKind::Controller { tap_hz })
                .ok_or_else(unsupported)?,
            searched: None,
            prefix: Vec::new(),
            pieces: Vec::new(),
            locks: Vec::new(),
        })
    }

    /// The lock positions (x, y, orientation ID) of the piece in play in `console`, sorted;
    /// empty when no piece is in play (between pieces, out of a game).
    fn search(&mut self, py: Python<'_>, console: PyRef<'_, Console>) -> Vec<(i8, i8, u8)> {
        self.searched = driver::piece_in_play(&console.inner);
        self.prefix.clear();
        self.pieces.clear();
        self.locks.clear();
        let Some(InPlay {
            board,
            control,
            level,
            ..
        }) = self.searched.filter(InPlay::fits)
        else {
            return Vec::new();
        };
        let gravity = self.planner.gravity(level);
        let period = self.search.period;
        match search_start(&board, gravity, control, Pad::idle(), period) {
            Err(locked) => {
                self.prefix.push(DOWN);
                self.pieces.push(locked);
            }
            Ok((start, pad, first)) => {
                self.prefix.extend(first);
                let (search, locks) = (&mut self.search, &mut self.locks);
                py.detach(|| search.search(&board, gravity, start, pad, locks));
                locks.sort_by_key(|l| (l.piece.id, l.piece.x, l.piece.y));
                self.pieces.extend(locks.iter().map(|l| l.piece));
            }
        }
        self.pieces.iter().map(|p| (p.x, p.y, p.id)).collect()
    }

    /// The index of the native AI's choice in the last search's list (its planner, with the
    /// preview piece), or None when no piece is in play.
    fn best(&mut self, py: Python<'_>, console: PyRef<'_, Console>) -> PyResult<Option<usize>> {
        let Some(InPlay {
            board,
            control,
            level,
            next,
        }) = self.searched_in(&console.inner)?
        else {
            return Ok(None);
        };
        let planner = &mut self.planner;
        let decision = py.detach(|| planner.decide(&board, level, control, Pad::idle(), next));
        Ok(decision.and_then(|d| self.pieces.iter().position(|&p| p == d.target)))
    }

    /// Plays lock position `index` of the last search (None: the piece falls with nothing
    /// pressed) frame by frame until the piece locks, then runs until the next piece is in play
    /// or the game is over, the GIL released. Returns where the piece locked.
    fn play(
        &mut self,
        py: Python<'_>,
        mut console: PyRefMut<'_, Console>,
        index: Option<usize>,
    ) -> PyResult<(i8, i8, u8)> {
        if self.searched_in(&console.inner)?.is_none() {
            return Err(PyValueError::new_err("no piece is in play"));
        }
        let inputs = match index {
            None => Vec::new(),
            Some(i) if i < self.pieces.len() => {
                let plan = self.locks.get(i).map(|lock| self.search.plan(lock));
                [self.prefix.clone(), plan.unwrap_or_default()].concat()
            }
            Some(i) => {
                return Err(PyIndexError::new_err(format!(
                    "placement {i} is not one of the {} found",
                    self.pieces.len()
                )))
            }
        };
        self.searched = None;
        let console = &mut console.inner;
        let locked = py.detach(|| driver::play_piece(console, &inputs));
        Ok((locked.x, locked.y, locked.id))
    }
}

/// The iNES image of Quadfall, the built-in game (to save or hand to other emulators).
#[pyfunction]
fn quadfall_rom(py: Python<'_>) -> Bound<'_, PyBytes> {
    PyBytes::new(py, QUADFALL)
}

#[pymodule]
fn _nestor(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(quadfall_rom, m)?)?;
    m.add_function(wrap_pyfunction!(best_placement, m)?)?;
    m.add_function(wrap_pyfunction!(placements, m)?)?;
    m.add_class::<Console>()?;
    m.add_class::<Ram>()?;
    m.add_class::<VecConsole>()?;
    m.add_class::<PiecePlayer>()?;
    Ok(())
}
