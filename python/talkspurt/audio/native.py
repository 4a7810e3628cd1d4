"""ctypes bindings to the codec libraries Debian ships (no headers needed).

| codec | library (Debian package) | concealment used |
|---|---|---|
| Opus | libopus (`libopus0`) | libopus PLC (`opus_decode` with no data), in-band FEC (`decode_fec = 1` on the next packet), DTX |
| G.729 / G.729A | bcg729 (`libbcg729-0`), G.729 Annex A | the decoder's frame erasure flag (G.729 §4.4) |
| Speex NB | libspeex (`libspeex1`) | `speex_decode_int` with no bits (the decoder's own PLC) |
| GSM-FR | libgsm (`libgsm1`), GSM 06.10 | substitution and muting after GSM 06.11 (here, in Python, on the decoded parameters) |
| AMR-NB | opencore-amr (`libopencore-amrnb0`), 3GPP TS 26.073 | bad-frame indicator, TS 26.091 concealment |

Signatures are those of the libraries' public headers (opus.h 1.3,
bcg729/encoder.h and decoder.h 1.1, speex.h / speex_bits.h 1.2, gsm.h
1.0.22, opencore-amrnb/interf_enc.h and interf_dec.h 0.1.6).
"""

from __future__ import annotations

import ctypes as C
import ctypes.util
from typing import Optional

import numpy as np

PACKAGES = {
    "opus": "libopus0",
    "bcg729": "libbcg729-0",
    "speex": "libspeex1",
    "gsm": "libgsm1",
    "opencore-amrnb": "libopencore-amrnb0",
}
_SONAMES = {
    "opus": "libopus.so.0",
    "bcg729": "libbcg729.so.0",
    "speex": "libspeex.so.1",
    "gsm": "libgsm.so.1",
    "opencore-amrnb": "libopencore-amrnb.so.0",
}
_loaded: dict[str, C.CDLL] = {}


class CodecUnavailable(RuntimeError):
    """A codec library is not installed."""


def load(name: str) -> C.CDLL:
    """The shared library `name`, or CodecUnavailable naming its Debian package."""
    if name not in _loaded:
        try:
            _loaded[name] = C.CDLL(_SONAMES[name])
        except OSError:
            found = ctypes.util.find_library(name)
            if not found:
                raise CodecUnavailable(
                    f"the {name} library is not installed (Debian package {PACKAGES[name]}; "
                    f".ci/run installs it)") from None
            _loaded[name] = C.CDLL(found)
    return _loaded[name]


def _i16(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(np.clip(np.rint(x), -32768, 32767).astype(np.int16))


_P16 = C.POINTER(C.c_int16)
_PU8 = C.POINTER(C.c_uint8)


def _ptr16(a: np.ndarray):
    return a.ctypes.data_as(_P16)


# -- Opus (RFC 6716) ---------------------------------------------------------
OPUS_APPLICATION_VOIP = 2048
OPUS_SET_BITRATE = 4002
OPUS_SET_MAX_BANDWIDTH = 4004
OPUS_SET_COMPLEXITY = 4010
OPUS_SET_INBAND_FEC = 4012
OPUS_SET_PACKET_LOSS_PERC = 4014
OPUS_SET_DTX = 4016
OPUS_BANDWIDTH_NARROWBAND = 1101
OPUS_BANDWIDTH_WIDEBAND = 1103


class OpusCodec:
    def __init__(self, fs: int, frame: int, bitrate: int, fec: bool, dtx: bool, loss_perc: int):
        lib = load("opus")
        lib.opus_encoder_create.restype = C.c_void_p
        lib.opus_decoder_create.restype = C.c_void_p
        err = C.c_int(0)
        self.lib, self.frame, self.fec = lib, frame, fec
        self.enc = lib.opus_encoder_create(C.c_int32(fs), 1, OPUS_APPLICATION_VOIP, C.byref(err))
        if err.value != 0 or not self.enc:
            raise ValueError(f"opus_encoder_create({fs} Hz) failed with error {err.value}")
        self.dec = lib.opus_decoder_create(C.c_int32(fs), 1, C.byref(err))
        band = OPUS_BANDWIDTH_NARROWBAND if fs == 8000 else OPUS_BANDWIDTH_WIDEBAND
        for req, val in ((OPUS_SET_BITRATE, bitrate), (OPUS_SET_INBAND_FEC, int(fec)),
                         (OPUS_SET_PACKET_LOSS_PERC, loss_perc), (OPUS_SET_DTX, int(dtx)),
                         (OPUS_SET_MAX_BANDWIDTH, band), (OPUS_SET_COMPLEXITY, 10)):
            rc = lib.opus_encoder_ctl(C.c_void_p(self.enc), C.c_int(req), C.c_int(val))
            if rc != 0:
                raise ValueError(f"opus_encoder_ctl({req}, {val}) failed with error {rc}")
        self._out = np.zeros(frame, dtype=np.int16)
        self._buf = (C.c_uint8 * 1500)()

    def encode(self, pcm: np.ndarray) -> bytes:
        x = _i16(pcm)
        n = self.lib.opus_encode(C.c_void_p(self.enc), _ptr16(x), self.frame, self._buf, 1500)
        if n < 0:
            raise RuntimeError(f"opus_encode failed with error {n}")
        return bytes(self._buf[:n])

    def _decode(self, data: Optional[bytes], fec: int) -> np.ndarray:
        ptr = C.cast(C.c_char_p(data), _PU8) if data else None
        n = self.lib.opus_decode(C.c_void_p(self.dec), ptr, len(data) if data else 0,
                                 _ptr16(self._out), self.frame, fec)
        if n < 0:
            raise RuntimeError(f"opus_decode failed with error {n}")
        return self._out.astype(float)

    def decode(self, data: Optional[bytes]) -> np.ndarray:
        return self._decode(data, 0)

    def decode_fec(self, next_data: bytes) -> np.ndarray:
        """The lost frame rebuilt from the in-band FEC of the next packet."""
        return self._decode(next_data, 1)

    def __del__(self):
        if getattr(self, "enc", None):
            self.lib.opus_encoder_destroy(C.c_void_p(self.enc))
        if getattr(self, "dec", None):
            self.lib.opus_decoder_destroy(C.c_void_p(self.dec))


# -- G.729 Annex A (bcg729) ---------------------------------------------------
class G729Codec:
    frame = 80

    def __init__(self):
        lib = load("bcg729")
        lib.initBcg729EncoderChannel.restype = C.c_void_p
        lib.initBcg729DecoderChannel.restype = C.c_void_p
        self.lib = lib
        # VAD off: the run's on/off pattern already decides what is sent.
        self.enc = lib.initBcg729EncoderChannel(C.c_uint8(0))
        self.dec = lib.initBcg729DecoderChannel()
        self._bits = (C.c_uint8 * 10)()
        self._len = C.c_uint8(0)
        self._out = np.zeros(80, dtype=np.int16)

    def encode(self, pcm: np.ndarray) -> bytes:
        x = _i16(pcm)
        self.lib.bcg729Encoder(C.c_void_p(self.enc), _ptr16(x), self._bits, C.byref(self._len))
        return bytes(self._bits[:self._len.value])

    def decode(self, data: Optional[bytes]) -> np.ndarray:
        if data:
            buf = (C.c_uint8 * len(data)).from_buffer_copy(data)
            self.lib.bcg729Decoder(C.c_void_p(self.dec), buf, C.c_uint8(len(data)), C.c_uint8(0),
                                   C.c_uint8(0), C.c_uint8(0), _ptr16(self._out))
        else:  # frame erasure flag (G.729 §4.4)
            self.lib.bcg729Decoder(C.c_void_p(self.dec), None, C.c_uint8(0), C.c_uint8(1),
                                   C.c_uint8(0), C.c_uint8(0), _ptr16(self._out))
        return self._out.astype(float)

    def __del__(self):
        if getattr(self, "enc", None):
            self.lib.closeBcg729EncoderChannel(C.c_void_p(self.enc))
        if getattr(self, "dec", None):
            self.lib.closeBcg729DecoderChannel(C.c_void_p(self.dec))


# -- Speex narrowband -----------------------------------------------------------
SPEEX_SET_MODE = 6
SPEEX_SET_ENH = 0


class SpeexCodec:
    frame = 160

    def __init__(self, submode: int):
        lib = load("speex")
        for f in ("speex_lib_get_mode", "speex_encoder_init", "speex_decoder_init"):
            getattr(lib, f).restype = C.c_void_p
        self.lib = lib
        mode = lib.speex_lib_get_mode(C.c_int(0))  # SPEEX_MODEID_NB
        self.enc = lib.speex_encoder_init(C.c_void_p(mode))
        self.dec = lib.speex_decoder_init(C.c_void_p(mode))
        m = C.c_int(submode)
        lib.speex_encoder_ctl(C.c_void_p(self.enc), SPEEX_SET_MODE, C.byref(m))
        on = C.c_int(1)
        lib.speex_decoder_ctl(C.c_void_p(self.dec), SPEEX_SET_ENH, C.byref(on))
        # SpeexBits is a small struct (pointers and ints); 256 bytes is ample.
        self._ebits = C.create_string_buffer(256)
        self._dbits = C.create_string_buffer(256)
        lib.speex_bits_init(self._ebits)
        lib.speex_bits_init(self._dbits)
        self._buf = C.create_string_buffer(200)
        self._out = np.zeros(160, dtype=np.int16)

    def encode(self, pcm: np.ndarray) -> bytes:
        x = _i16(pcm)
        self.lib.speex_bits_reset(self._ebits)
        self.lib.speex_encode_int(C.c_void_p(self.enc), _ptr16(x), self._ebits)
        n = self.lib.speex_bits_write(self._ebits, self._buf, 200)
        return self._buf.raw[:n]

    def decode(self, data: Optional[bytes]) -> np.ndarray:
        if data:
            self.lib.speex_bits_read_from(self._dbits, C.c_char_p(data), len(data))
            self.lib.speex_decode_int(C.c_void_p(self.dec), self._dbits, _ptr16(self._out))
        else:  # NULL bits: the decoder's packet loss concealment
            self.lib.speex_decode_int(C.c_void_p(self.dec), None, _ptr16(self._out))
        return self._out.astype(float)

    def __del__(self):
        if getattr(self, "enc", None):
            self.lib.speex_encoder_destroy(C.c_void_p(self.enc))
            self.lib.speex_bits_destroy(self._ebits)
        if getattr(self, "dec", None):
            self.lib.speex_decoder_destroy(C.c_void_p(self.dec))
            self.lib.speex_bits_destroy(self._dbits)


# -- GSM 06.10 full rate ---------------------------------------------------------
GSM_SILENT_AFTER = 16  # frames: GSM 06.11 mutes to silence within 320 ms
GSM_XMAX_STEP = 4  # xmaxc lowered per repeated frame: 8 steps halve the block maximum (GSM 06.10 APCM block-maximum coding), so ~3 dB


class GsmCodec:
    frame = 160

    def __init__(self):
        lib = load("gsm")
        lib.gsm_create.restype = C.c_void_p
        self.lib = lib
        self.enc = lib.gsm_create()
        self.dec = lib.gsm_create()
        self._bits = (C.c_uint8 * 33)()
        self._out = np.zeros(160, dtype=np.int16)
        self._last: Optional[np.ndarray] = None  # parameters of the last good frame
        self._lost = 0

    def encode(self, pcm: np.ndarray) -> bytes:
        x = _i16(pcm)
        self.lib.gsm_encode(C.c_void_p(self.enc), _ptr16(x), self._bits)
        return bytes(self._bits)

    def decode(self, data: Optional[bytes]) -> np.ndarray:
        if data:
            self._lost = 0
            buf = (C.c_uint8 * 33).from_buffer_copy(data)
            params = np.zeros(76, dtype=np.int16)
            self.lib.gsm_explode(C.c_void_p(self.dec), buf, _ptr16(params))
            self._last = params
        else:
            # GSM 06.11 §6 (example solution): repeat the last good frame,
            # muting gradually from the second lost frame, silent by 320 ms.
            self._lost += 1
            if self._last is None or self._lost > GSM_SILENT_AFTER:
                return np.zeros(160)
            params = self._last.copy()
            # Layout of gsm_explode: LARc[8], then 4 × (Nc, bc, Mc, xmaxc, xMc[13]).
            for sub in range(4):
                i = 8 + 17 * sub + 3
                params[i] = max(0, params[i] - GSM_XMAX_STEP * (self._lost - 1))
            buf = (C.c_uint8 * 33)()
            self.lib.gsm_implode(C.c_void_p(self.dec), _ptr16(params), buf)
        self.lib.gsm_decode(C.c_void_p(self.dec), buf, _ptr16(self._out))
        return self._out.astype(float)

    def __del__(self):
        for h in (getattr(self, "enc", None), getattr(self, "dec", None)):
            if h:
                self.lib.gsm_destroy(C.c_void_p(h))


# -- AMR-NB (opencore) -------------------------------------------------------------
AMR_MODES = {"4.75": 0, "5.15": 1, "5.9": 2, "6.7": 3, "7.4": 4, "7.95": 5, "10.2": 6, "12.2": 7}
_AMR_BYTES = [12, 13, 15, 17, 19, 20, 26, 31]  # speech bits rounded to octets, per mode


class AmrCodec:
    frame = 160

    def __init__(self, mode: int):
        lib = load("opencore-amrnb")
        lib.Encoder_Interface_init.restype = C.c_void_p
        lib.Decoder_Interface_init.restype = C.c_void_p
        self.lib, self.mode = lib, mode
        self.enc = lib.Encoder_Interface_init(C.c_int(0))  # DTX off: the run decides
        self.dec = lib.Decoder_Interface_init()
        self._buf = (C.c_uint8 * 64)()
        self._out = np.zeros(160, dtype=np.int16)
        # A lost frame: the mode's table-of-contents octet and blank bits, bfi = 1.
        self._blank = bytes([(mode << 3) | 0x04]) + bytes(_AMR_BYTES[mode])

    def encode(self, pcm: np.ndarray) -> bytes:
        x = _i16(pcm)
        n = self.lib.Encoder_Interface_Encode(C.c_void_p(self.enc), C.c_int(self.mode), _ptr16(x),
                                              self._buf, C.c_int(0))
        return bytes(self._buf[:n])

    def decode(self, data: Optional[bytes]) -> np.ndarray:
        frame, bfi = (data, 0) if data else (self._blank, 1)
        buf = (C.c_uint8 * len(frame)).from_buffer_copy(frame)
        self.lib.Decoder_Interface_Decode(C.c_void_p(self.dec), buf, _ptr16(self._out), C.c_int(bfi))
        return self._out.astype(float)

    def __del__(self):
        if getattr(self, "enc", None):
            self.lib.Encoder_Interface_exit(C.c_void_p(self.enc))
        if getattr(self, "dec", None):
            self.lib.Decoder_Interface_exit(C.c_void_p(self.dec))
