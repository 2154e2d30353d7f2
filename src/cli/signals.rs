//! Signals: on SIGINT, SIGTERM or SIGHUP, remove the temporary files of output being
//! written, restore the terminal if a hidden prompt turned echo off, and exit with
//! 128 + the signal number (130 for SIGINT).

use std::sync::Mutex;

/// Terminal settings to put back if a signal arrives while a hidden prompt is active.
static TTY_RESTORE: Mutex<Option<(i32, libc::termios)>> = Mutex::new(None);

/// Installs the handler thread, once; later calls do nothing. Called by the commands
/// that need it (those writing output files or prompting), not at start-up: a lookup
/// process should not pay for a thread it never uses. Without it, SIGINT ends the
/// process with the shell's status 130 anyway.
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(install_now);
}

fn install_now() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        use signal_hook::iterator::Signals;
        let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    crate::streams::remove_live_temp_files();
                    restore_tty();
                    std::process::exit(128 + sig);
                }
            })
            .ok();
    }
}

/// Remembers the terminal settings of `fd`, to be restored by [`restore_tty`] (or by a
/// signal) after a hidden prompt.
pub fn save_tty(fd: i32) {
    install();
    #[allow(unsafe_code)]
    // SAFETY: tcgetattr only writes into the zero-initialised termios we own; a failure
    // (fd not a terminal) is reported by its return value and then nothing is saved.
    let saved = unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        (libc::tcgetattr(fd, &mut t) == 0).then_some(t)
    };
    if let Some(t) = saved {
        *TTY_RESTORE.lock().unwrap_or_else(|e| e.into_inner()) = Some((fd, t));
    }
}

/// Puts back the terminal settings saved by [`save_tty`], if any, and forgets them.
pub fn restore_tty() {
    let saved = TTY_RESTORE.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some((fd, t)) = saved {
        #[allow(unsafe_code)]
        // SAFETY: tcsetattr reads the termios we saved from the same descriptor; on
        // failure nothing changes.
        unsafe {
            libc::tcsetattr(fd, libc::TCSANOW, &t);
        }
    }
}
