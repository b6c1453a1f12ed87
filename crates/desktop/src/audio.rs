//! Sound out through cpal: the emulator pushes each frame's samples into a small ring buffer that
//! the device's callback drains.
//!
//! The emulator, not the sound card, sets the pace (60.0988 frames per second), so the two clocks
//! drift apart. Dynamic rate control (as in byuu's write-up "Dynamic Rate Control") resamples
//! each frame's samples to slightly more or fewer output samples, by at most
//! `MAX_RATE_ADJUST`, steering the buffer toward half full: it never runs dry or overflows, and
//! the pitch change is far below what an ear can hear.

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
    resampler: Resampler,
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
            resampler: Resampler::default(),
            volume: 1.0,
            muted: false,
        })
    }

    /// Queues one frame's samples, recorded at `input_rate` samples per second.
    pub fn queue(&mut self, input: &[f32], input_rate: f64) {
        let mut ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        let fill = ring.samples.len() as f64 / self.capacity as f64;
        let adjust = 1.0 + MAX_RATE_ADJUST * (1.0 - 2.0 * fill);
        let step = input_rate / (f64::from(self.rate) * adjust);
        let gain = if self.muted { 0.0 } else { self.volume };
        self.resampler.run(input, step, |sample| {
            if ring.samples.len() < self.capacity {
                ring.samples.push_back(sample * gain);
            }
        });
    }

    /// Samples the device has consumed since it opened.
    pub fn consumed(&self) -> u64 {
        self.ring.lock().unwrap_or_else(|e| e.into_inner()).consumed
    }

    /// Samples waiting in the ring buffer.
    pub fn buffered(&self) -> usize {
        let ring = self.ring.lock().unwrap_or_else(|e| e.into_inner());
        ring.samples.len()
    }
}

/// Linear-interpolation resampler that carries its position across frames.
#[derive(Default)]
struct Resampler {
    /// Position of the next output sample, in input samples past `last`.
    phase: f64,
    /// The previous frame's last input sample.
    last: f32,
}

impl Resampler {
    /// Emits one output sample every `step` input samples.
    fn run(&mut self, input: &[f32], step: f64, mut emit: impl FnMut(f32)) {
        let end = input.len() as f64;
        let mut pos = self.phase;
        while pos < end {
            let i = pos as usize;
            let before = if i == 0 { self.last } else { input[i - 1] };
            emit(before + (input[i] - before) * pos.fract() as f32);
            pos += step;
        }
        self.phase = pos - end;
        if let Some(&last) = input.last() {
            self.last = last;
        }
    }
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
    fn resampler_keeps_the_long_run_ratio_across_frames() {
        let mut resampler = Resampler::default();
        let mut count = 0;
        let input: Vec<f32> = (0..735).map(|i| i as f32).collect();
        for _ in 0..100 {
            resampler.run(&input, 44_100.0 / 48_000.0, |_| count += 1);
        }
        let expected = 73_500.0 * 48_000.0 / 44_100.0;
        assert!(
            (f64::from(count) - expected).abs() <= 1.0,
            "{count} vs {expected}"
        );
    }

    #[test]
    fn resampler_interpolates_between_samples_and_frames() {
        let mut resampler = Resampler::default();
        let mut out = Vec::new();
        resampler.run(&[2.0, 4.0], 0.5, |s| out.push(s));
        resampler.run(&[6.0], 0.5, |s| out.push(s));
        assert_eq!(out, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
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
