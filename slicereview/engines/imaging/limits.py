"""Size limits checked from a file's header before any pixel memory is allocated.

A hostile or damaged header can ask a decoder for terabytes (a DICOM claiming 65535 × 65535
pixels in 200 bytes of RLE, a NIfTI header claiming 4.5 GB over 64 bytes of data, a deflated
DICOM or gzip stream that inflates a thousandfold). Every reader compares the header's claims
with a :class:`Limits` first and raises :class:`~.errors.LimitExceededError` naming the limit.

The defaults admit real data with room to spare: a mammogram (~4.5k × 3k × 16 bit, 27 MB a
frame), CT/MR volumes up to 512 × 512 × 2000 voxels of float32 (2.1 GB), multi-frame DICOM
with thousands of frames.

Example
-------
>>> limits = Limits()
>>> limits.check_frame(4500, 3000, 2)          # a mammogram passes
>>> limits.check_frame(65535, 65535, 2)
Traceback (most recent call last):
...
slicereview.engines.imaging.errors.LimitExceededError: The image is 65535 × 65535 pixels, more than the limit of 100 million pixels per frame (max_frame_pixels); the header is probably damaged, so leave the file out.
"""  # noqa: E501

from __future__ import annotations

from dataclasses import dataclass

from slicereview.engines.imaging.errors import LimitExceededError

_GIB = 1 << 30
_ADVICE = "the header is probably damaged, so leave the file out"


def _size(n: int) -> str:
    """Bytes as a short human figure: ``'2.0 GB'``, ``'512 MB'``."""
    if n >= _GIB:
        return f"{n / _GIB:.1f} GB"
    return f"{n / (1 << 20):.0f} MB"


@dataclass(frozen=True)
class Limits:
    """How much one file may ask for (all checked before decoding).

    Attributes
    ----------
    max_frame_pixels
        Pixels of one 2-D frame or slice (rows × columns). Default 100 million (10k × 10k).
    max_frames
        Frames of a multi-frame DICOM file. Default 20 000.
    max_decoded_bytes
        Bytes after decompression of one stream (deflated DICOM, gzip of ``.nii.gz``/NRRD,
        zlib TIFF strips, all frames of a DICOM file). Default 2 GiB + 64 MiB.
    max_volume_bytes
        Bytes of one volume in memory (voxels × bytes per voxel × components). Default
        2 GiB + 64 MiB: a 512 × 512 × 2000 float32 volume fits.
    child_address_space
        Address-space limit (``RLIMIT_AS``) of the child process that decodes in isolation
        (:mod:`.isolated`). Default 7 GiB: a volume at the limit, its copy, and the libraries.
    decode_timeout_s
        Seconds an isolated decode may take before the child is stopped. Default 120.
    """

    max_frame_pixels: int = 100_000_000
    max_frames: int = 20_000
    max_decoded_bytes: int = 2 * _GIB + (64 << 20)
    max_volume_bytes: int = 2 * _GIB + (64 << 20)
    child_address_space: int = 7 * _GIB
    decode_timeout_s: float = 120.0

    def check_frame(self, rows: int, cols: int, bytes_per_pixel: int = 1) -> None:
        """Refuse a frame with more than :attr:`max_frame_pixels` pixels."""
        if rows * cols > self.max_frame_pixels:
            raise LimitExceededError(
                f"The image is {rows} × {cols} pixels, more than the limit of "
                f"{self.max_frame_pixels // 1_000_000} million pixels per frame "
                f"(max_frame_pixels); {_ADVICE}.", limit="max_frame_pixels",
            )
        self.check_decoded(rows * cols * max(1, bytes_per_pixel))

    def check_frames(self, frames: int) -> None:
        """Refuse a file with more than :attr:`max_frames` frames."""
        if frames > self.max_frames:
            raise LimitExceededError(
                f"The file claims {frames} frames, more than the limit of {self.max_frames} "
                f"(max_frames); {_ADVICE}.", limit="max_frames",
            )

    def check_decoded(self, n_bytes: int) -> None:
        """Refuse pixel data that would decompress to more than :attr:`max_decoded_bytes`."""
        if n_bytes > self.max_decoded_bytes:
            raise LimitExceededError(
                f"The pixel data would take {_size(n_bytes)} once decompressed, more than the "
                f"limit of {_size(self.max_decoded_bytes)} (max_decoded_bytes); {_ADVICE}.",
                limit="max_decoded_bytes",
            )

    def check_volume(self, n_bytes: int) -> None:
        """Refuse a volume larger than :attr:`max_volume_bytes` in memory."""
        if n_bytes > self.max_volume_bytes:
            raise LimitExceededError(
                f"The volume would take {_size(n_bytes)} of memory, more than the limit of "
                f"{_size(self.max_volume_bytes)} (max_volume_bytes); {_ADVICE}.",
                limit="max_volume_bytes",
            )


#: The limits used when a caller passes none.
DEFAULT_LIMITS = Limits()
