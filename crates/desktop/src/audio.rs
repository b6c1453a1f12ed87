//! Sound out through cpal: the emulator pushes each frame's samples into a small ring buffer that
//! the device's callback drains.
//!
//! The emulator, not the sound card, sets the pace (60.0988 frames per second, 50.007 on PAL
//! and Dendy), so the two clocks drift apart. Dynamic rate control (byuu's "Dynamic Rate
//! Control" write-up) has the APU make slightly more or fewer samples per frame, at most
//! `MAX_RATE_ADJUST` off the device's rate,
//! steering the buffer toward half full: it never runs dry or overflows, and the pitch change is
//! far below what an ear can hear.

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, SizedSample};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Largest relative change of the resampling ratio (0.5%).
const MAX_RATE_ADJUST: f64 = 0.005;
/// Ring buffer length: 100 ms, so the target latency is 50 ms.
const BUFFER_SECONDS: f64 = 0.1;

/// Samples shared with the device callback.
struct Ring {
    samples: VecDeque<f32>,
    /// Playback waits for a half-full buffer after a start or an underrun (e.g. after a pause),
    /// so sound resumes with its full cushion instead of stuttering.
    primed: bool,
    half: usize,
    /// Samples the device has taken, silence included: the device's clock.
    consumed: u64,
}

impl Ring {
    /// The device callback: `channels` copies of each mono sample.
    fn fill<T: SizedSample + FromSample<f32>>(&mut self, out: &mut [T], channels: usize) {
        if !self.primed && self.samples.len() >= self.half {
            self.primed = true;
        }
        for frame in out.chunks_mut(channels) {
            let sample = if self.primed {
                self.samples.pop_front().unwrap_or_else(|| {
                    self.primed = false;
                    0.0
                })
            } else {
                0.0
            };
            frame.fill(T::from_sample(sample));
            self.consumed += 1;
        }
    }
}

pub struct Audio {
    _stream: cpal::Stream,
    ring: Arc<Mutex<Ring>>,
    /// Output samples per second.
    pub rate: u32,
    capacity: usize,
    pub volume: f32,
    pub muted: bool,
}

impl Audio {
    /// Opens the named output device (empty: the default) and starts playing silence.
    pub fn open(device_name: &str) -> Result<Audio, String> {
        // ALSA prints its own configuration errors to stderr, many lines for a machine without
        // a sound card; the caller reports the failure in one line instead.
        quiet_stderr(|| Audio::open_device(device_name))
    }

    /// Opens the named output device, or the default one when that one cannot be opened (a
    /// device unplugged since it was chosen); the second value says why in one line.
    pub fn open_or_default(device_name: &str) -> Result<(Audio, Option<String>), String> {
        match Audio::open(device_name) {
            Ok(audio) => Ok((audio, None)),
            Err(err) if !device_name.is_empty() => {
                let audio = Audio::open("")?;
                Ok((audio, Some(format!("{err}; the default device plays"))))
            }
            Err(err) => Err(err),
        }
    }

    fn open_device(device_name: &str) -> Result<Audio, String> {
        let host = cpal::default_host();
        let device = if device_name.is_empty() {
            host.default_output_device()
        } else {
            host.output_devices()
                .map_err(|e| e.to_string())?
                .find(|d| d.name().is_ok_and(|n| n == device_name))
        }
        .ok_or_else(|| match device_name {
            "" => "no audio output device".to_string(),
            name => format!("no audio output device {name:?}"),
        })?;
        let supported = device.default_output_config().map_err(|e| e.to_string())?;
        let config: cpal::StreamConfig = supported.config();
        let rate = config.sample_rate.0;
        let capacity = (f64::from(rate) * BUFFER_SECONDS) as usize;
        let ring = Arc::new(Mutex::new(Ring {
            samples: VecDeque::with_capacity(capacity),
            primed: false,
            half: capacity / 2,
            consumed: 0,
        }));
        let stream = match supported.sample_format() {
            cpal::SampleFormat::F32 => build::<f32>(&device, &config, &ring),
            cpal::SampleFormat::I16 => build::<i16>(&device, &config, &ring),
            cpal::SampleFormat::U16 => build::<u16>(&device, &config, &ring),
            other => return Err(format!("unsupported sample format {other}")),
        }?;
        stream.play().map_err(|e| e.to_string())?;
        Ok(Audio {
            _stream: stream,
            ring,
            rate,
            capacity,
            volume: 1.0,
            muted: false,
        })
    }

    /// The rate to make samples at now: the device's rate, nudged up while the buffer is less
    /// than half full and down while it is more.
    pub fn steered_rate(&self) -> f64 {
        steer(f64::from(self.rate), self.buffered(), self.capacity)
    }

    /// Queues samples made at `steered_rate`; what does not fit is dropped.
    pub fn push(&mut self, samples: &[i16]) {
        let gain = if self.muted { 0.0 } else { self.volume } / 32768.0;
        let mut ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        let room = self.capacity.saturating_sub(ring.samples.len());
        let fits = &samples[..samples.len().min(room)];
        ring.samples
            .extend(fits.iter().map(|&s| f32::from(s) * gain));
    }

    /// Samples the device has consumed since it opened.
    pub fn consumed(&self) -> u64 {
        self.ring.lock().unwrap_or_else(|e| e.into_inner()).consumed
    }

    /// How many samples the ring buffer holds at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Samples waiting in the ring buffer.
    pub fn buffered(&self) -> usize {
        let ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        ring.samples.len()
    }
}

/// The names of the output devices the sound host lists (Audio > Device); none when it lists
/// none or cannot list them.
pub fn output_devices() -> Vec<String> {
    quiet_stderr(|| {
        let Ok(devices) = cpal::default_host().output_devices() else {
            return Vec::new();
        };
        let mut names: Vec<String> = devices.filter_map(|d| d.name().ok()).collect();
        names.dedup();
        names
    })
}

/// Dynamic rate control: `rate` scaled by up to `MAX_RATE_ADJUST`, linearly in how far the
/// buffer is from half full.
fn steer(rate: f64, buffered: usize, capacity: usize) -> f64 {
    let fill = buffered as f64 / capacity as f64;
    rate * (1.0 + MAX_RATE_ADJUST * (1.0 - 2.0 * fill))
}

/// Runs `f` with file descriptor 2 pointed at /dev/null.
#[cfg(unix)]
fn quiet_stderr<T>(f: impl FnOnce() -> T) -> T {
    use std::os::fd::AsRawFd;
    let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") else {
        return f();
    };
    // SAFETY: plain descriptor calls on descriptors we own; 2 is restored before returning.
    let saved = unsafe { libc::dup(2) };
    if saved < 0 {
        return f();
    }
    unsafe { libc::dup2(null.as_raw_fd(), 2) };
    let result = f();
    unsafe {
        libc::dup2(saved, 2);
        libc::close(saved);
    }
    result
}

#[cfg(not(unix))]
fn quiet_stderr<T>(f: impl FnOnce() -> T) -> T {
    f()
}

fn build<T: SizedSample + FromSample<f32>>(
    device: &cpal::Device,
    config: &cpal::StreamConfig,
    ring: &Arc<Mutex<Ring>>,
) -> Result<cpal::Stream, String> {
    let ring = Arc::clone(ring);
    let channels = usize::from(config.channels);
    device
        .build_output_stream(
            config,
            move |out: &mut [T], _| {
                let mut ring = ring.lock().unwrap_or_else(|e| e.into_inner());
                ring.fill(out, channels);
            },
            |err| eprintln!("nestor: audio: {err}"),
            None,
        )
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(half: usize) -> Ring {
        Ring {
            samples: VecDeque::new(),
            primed: false,
            half,
            consumed: 0,
        }
    }

    #[test]
    fn rate_control_steers_toward_half_full_within_half_a_percent() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
        assert!(close(steer(48_000.0, 2_400, 4_800), 48_000.0));
        assert!(close(steer(48_000.0, 0, 4_800), 48_240.0));
        assert!(close(steer(48_000.0, 4_800, 4_800), 47_760.0));
        assert!(steer(48_000.0, 1_000, 4_800) > steer(48_000.0, 2_000, 4_800));
    }

    #[test]
    fn playback_waits_for_half_a_buffer_then_copies_to_each_channel() {
        let mut r = ring(2);
        r.samples.push_back(0.5);
        let mut out = [1.0f32; 4];
        r.fill(&mut out, 2);
        assert_eq!(out, [0.0; 4], "not primed: silence");
        r.samples.push_back(-0.5);
        r.fill(&mut out, 2);
        assert_eq!(out, [0.5, 0.5, -0.5, -0.5]);
        r.fill(&mut out, 2);
        assert_eq!(out, [0.0; 4], "underrun: silence");
        assert!(!r.primed);
        assert_eq!(r.consumed, 6);
    }
}
