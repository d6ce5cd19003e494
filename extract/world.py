"""A PyBullet world: objects from `pybullet_data`, a pinhole camera, CPU rendering and
ground-truth boxes from the segmentation mask.

No physics is stepped: objects are placed resting on their support (from their bounding boxes),
so a layout is exactly reproducible from its seed. Lengths inside are metres (PyBullet's unit);
everything that leaves this module is in millimetres and degrees.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from metalogic.extract.boxes import cut_by_border
from metalogic.extract.trajectory import Box, GtObject, Pose, triple


@dataclass(frozen=True)
class Asset:
    """An object kind: its class name, the pybullet_data file and a range of scale factors."""

    cls: str
    file: str
    scale: tuple[float, float]
    upright: tuple[float, float, float] = (0.0, 0.0, 0.0)  # roll, pitch, yaw that make it stand up


# The labelled classes: what the shipped detector is trained on (one entry per class; the order
# is the detector's class order, so only ever append).
ASSETS: dict[str, Asset] = {
    "table": Asset("table", "table/table.urdf", (0.8, 1.0)),
    "shelf": Asset("shelf", "kiva_shelf/model.sdf", (0.6, 0.8)),
    "teddy": Asset("teddy", "teddy_vhacd.urdf", (2.5, 4.0), (math.pi / 2, 0.0, 0.0)),
    "duck": Asset("duck", "duck_vhacd.urdf", (1.5, 2.5), (math.pi / 2, 0.0, 0.0)),
    "mug": Asset("mug", "objects/mug.urdf", (1.2, 1.6), (math.pi / 2, 0.0, 0.0)),
    "ball": Asset("ball", "soccerball.urdf", (0.25, 0.35)),
    "robot": Asset("robot", "r2d2.urdf", (0.8, 1.2)),
    "car": Asset("car", "racecar/racecar.urdf", (1.5, 2.0)),
}
CLASSES: tuple[str, ...] = tuple(ASSETS)


@dataclass(frozen=True)
class CameraSpec:
    width: int = 320
    height: int = 240
    vfov_deg: float = 60.0
    near: float = 0.05
    far: float = 60.0


_MESH_CACHE: dict[str, np.ndarray] = {}


def _mesh_vertices(path: str) -> np.ndarray:
    """Vertices of an OBJ or STL mesh (cached per file)."""
    if path not in _MESH_CACHE:
        with open(path, "rb") as fh:
            data = fh.read()
        if path.lower().endswith(".stl") and data[:5].lower() != b"solid":
            n = int(np.frombuffer(data[80:84], dtype="<u4")[0])
            rec = np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")])
            verts = np.frombuffer(data[84 : 84 + 50 * n], dtype=rec)["v"].reshape(-1, 3).astype(float)
        else:
            key = b"vertex" if path.lower().endswith(".stl") else b"v"
            verts = np.array(
                [
                    [float(t) for t in line.split()[1:4]]
                    for line in data.splitlines()
                    if line.split()[:1] == [key]
                ],
                dtype=float,
            )
        _MESH_CACHE[path] = verts
    return _MESH_CACHE[path]


def _corners(half: np.ndarray) -> np.ndarray:
    return np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float) * half


def _shape_points(geom: int, dims: tuple[float, ...], fname: str) -> np.ndarray | None:
    """Points spanning one visual shape in its own frame (PyBullet geometry codes)."""
    if geom == 5 and fname:  # mesh, dims = scale
        return _mesh_vertices(fname) * np.array(dims[:3])
    if geom == 3:  # box, dims = full extents
        return _corners(np.array(dims[:3]) / 2)
    if geom == 2:  # sphere, dims[0] = radius
        return _corners(np.full(3, dims[0]))
    if geom in (4, 7):  # cylinder / capsule: length, radius along z
        r, half_len = dims[1], dims[0] / 2 + (dims[1] if geom == 7 else 0)
        return _corners(np.array([r, r, half_len]))
    return None


@contextmanager
def quiet_native() -> Iterator[None]:
    """Silence file descriptors 1 and 2 for a moment: PyBullet's C code prints its build time and
    argv there on import and connect, bypassing Python."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, devnull):
            os.close(fd)


def look_dir(yaw_deg: float, pitch_deg: float) -> tuple[float, float, float]:
    y, p = math.radians(yaw_deg), math.radians(pitch_deg)
    return (math.cos(p) * math.cos(y), math.cos(p) * math.sin(y), math.sin(p))


class World:
    """One PyBullet simulation (its own DIRECT connection) with a record of its labelled objects."""

    def __init__(self, cam: CameraSpec, rng: np.random.Generator) -> None:
        with quiet_native():
            import pybullet
            import pybullet_data
            from pybullet_utils import bullet_client

            self.pb = pybullet
            self.p: Any = bullet_client.BulletClient(connection_mode=pybullet.DIRECT)
        self.p.setAdditionalSearchPath(pybullet_data.getDataPath())
        self.cam = cam
        self.rng = rng
        self.objects: list[GtObject] = []
        self.uid_obj: dict[int, GtObject] = {}
        self.light = {
            "lightDirection": [
                float(rng.uniform(-1, 1)),
                float(rng.uniform(-1, 1)),
                float(rng.uniform(1.5, 3)),
            ],
            "lightAmbientCoeff": float(rng.uniform(0.45, 0.65)),
            "lightDiffuseCoeff": float(rng.uniform(0.45, 0.7)),
            "lightSpecularCoeff": 0.05,
        }
        self._proj = self.p.computeProjectionMatrixFOV(
            cam.vfov_deg, cam.width / cam.height, cam.near, cam.far
        )

    def close(self) -> None:
        self.p.disconnect()

    # ------------------------------------------------------------ building

    def load(
        self, file: str, pos: tuple[float, float, float], rpy: tuple[float, float, float], scale: float
    ) -> int:
        orn = self.p.getQuaternionFromEuler(rpy)
        if file.endswith(".sdf"):
            uid = self.p.loadSDF(file, globalScaling=scale)[0]
            self.p.resetBasePositionAndOrientation(uid, pos, orn)
            return int(uid)
        return int(self.p.loadURDF(file, pos, orn, globalScaling=scale, useFixedBase=True))

    def aabb(self, uid: int) -> tuple[np.ndarray, np.ndarray]:
        """The world-axis bounding box of what a body looks like (its visual shapes, over all
        links). Collision shapes would not do: the table's is only its top, the ball's is larger."""
        p = self.p
        pts = []
        inertial = {}
        for v in p.getVisualShapeData(uid):
            link, geom, dims, fname, vpos, vorn = v[1], v[2], v[3], v[4], v[5], v[6]
            local = _shape_points(geom, dims, fname.decode() if isinstance(fname, bytes) else fname)
            if local is None:
                continue
            if link == -1:
                if -1 not in inertial:
                    com_pos, com_orn = p.getBasePositionAndOrientation(uid)
                    ipos, iorn = p.getDynamicsInfo(uid, -1)[3:5]
                    inv_pos, inv_orn = p.invertTransform(ipos, iorn)
                    inertial[-1] = p.multiplyTransforms(com_pos, com_orn, inv_pos, inv_orn)
                frame_pos, frame_orn = inertial[-1]
            else:
                frame_pos, frame_orn = p.getLinkState(uid, link, computeForwardKinematics=True)[4:6]
            pos, orn = p.multiplyTransforms(frame_pos, frame_orn, vpos, vorn)
            rot = np.array(p.getMatrixFromQuaternion(orn)).reshape(3, 3)
            pts.append(local @ rot.T + np.array(pos))
        if not pts:
            lo, hi = (np.array(v) for v in p.getAABB(uid, -1))
            return lo, hi
        allpts = np.concatenate(pts)
        return allpts.min(axis=0), allpts.max(axis=0)

    def place(self, asset: Asset, x: float, y: float, yaw: float, support_z: float, scale: float) -> int:
        """Load an asset standing on the surface at height `support_z`, centred on (x, y)."""
        rpy = (asset.upright[0], asset.upright[1], asset.upright[2] + yaw)
        uid = self.load(asset.file, (x, y, support_z + 5.0), rpy, scale)
        lo, hi = self.aabb(uid)
        pos, orn = self.p.getBasePositionAndOrientation(uid)
        shift = np.array([x - (lo[0] + hi[0]) / 2, y - (lo[1] + hi[1]) / 2, support_z - lo[2]])
        self.p.resetBasePositionAndOrientation(uid, (np.array(pos) + shift).tolist(), orn)
        return uid

    def label(self, uid: int, cls: str, asset: str) -> GtObject:
        lo, hi = self.aabb(uid)
        centre, size = (lo + hi) / 2, hi - lo
        obj = GtObject(
            id=f"o{len(self.objects) + 1}",
            cls=cls,
            asset=asset,
            position_mm=triple(np.round(centre * 1000)),
            size_mm=triple(np.round(size * 1000)),
        )
        self.objects.append(obj)
        self.uid_obj[uid] = obj
        return obj

    def box(
        self,
        centre: tuple[float, float, float],
        half: tuple[float, float, float],
        rgba: tuple[float, float, float, float],
    ) -> int:
        """An unlabelled box (walls, floors, buildings)."""
        vis = self.p.createVisualShape(self.pb.GEOM_BOX, halfExtents=half, rgbaColor=rgba)
        col = self.p.createCollisionShape(self.pb.GEOM_BOX, halfExtents=half)
        return int(self.p.createMultiBody(0, col, vis, basePosition=centre))

    def tint(self, uid: int, rgba: tuple[float, float, float, float]) -> None:
        self.p.changeVisualShape(uid, -1, rgbaColor=rgba)

    # ------------------------------------------------------------ rendering

    def render(self, cam_pose: Pose) -> tuple[np.ndarray, np.ndarray]:
        """RGB image (H, W, 3) and segmentation mask (body ids, -1 background) seen from a camera pose."""
        eye = np.array([cam_pose.x_mm, cam_pose.y_mm, cam_pose.z_mm], dtype=float) / 1000.0
        target = eye + np.array(look_dir(cam_pose.yaw_deg, cam_pose.pitch_deg))
        view = self.p.computeViewMatrix(eye.tolist(), target.tolist(), [0, 0, 1])
        self._view = view
        w, h = self.cam.width, self.cam.height
        _, _, rgba, zbuf, seg = self.p.getCameraImage(
            w, h, view, self._proj, renderer=self.pb.ER_TINY_RENDERER, shadow=1, **self.light
        )
        rgb = np.asarray(rgba, dtype=np.uint8).reshape(h, w, 4)[:, :, :3]
        # The z-buffer holds normalised OpenGL depths; keep metric distances for occlusion tests.
        z = np.asarray(zbuf, dtype=np.float64).reshape(h, w)
        near, far = self.cam.near, self.cam.far
        self.last_depth = far * near / (far - (far - near) * z)
        return np.ascontiguousarray(rgb), np.asarray(seg, dtype=np.int64).reshape(h, w)

    def gt_boxes(self, seg: np.ndarray) -> list[Box]:
        """One box per labelled object visible in the mask: the extent of its visible pixels,
        flagged when the border cuts it, and when something nearer hides part of it (from the depth
        of the last render): `partly_hidden` always, `occluded` where the hidden part reaches beyond
        the visible box (the object's whole silhouette, rendered alone, has a larger box). A mug
        standing on a table hides part of the table's top, not its extent."""
        out = []
        size = (self.cam.width, self.cam.height)
        depth = getattr(self, "last_depth", None)
        ids, counts = np.unique(seg, return_counts=True)
        for uid, n in zip(ids.tolist(), counts.tolist(), strict=True):
            body = int(uid) & ((1 << 24) - 1)
            obj = self.uid_obj.get(body)
            if obj is None:
                continue
            mask = seg == uid
            ys, xs = np.nonzero(mask)
            bx = (int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max()))
            partly = depth is not None and hidden_by_nearer(mask, seg, depth)
            hidden = partly and self.whole_box(body) != bx
            out.append(Box(obj.id, obj.cls, bx, int(n), cut_by_border(bx, size), hidden, partly))
        out.sort(key=lambda b: int(b.object[1:]))
        return out

    def whole_box(self, body: int) -> tuple[int, int, int, int] | None:
        """The box of one body's whole silhouette seen from the last render's camera: rendered with
        every other body moved far out of view (and put back), so nothing can hide it."""
        p = self.p
        others = [p.getBodyUniqueId(i) for i in range(p.getNumBodies())]
        others = [b for b in others if b != body]
        poses = [p.getBasePositionAndOrientation(b) for b in others]
        try:
            for k, b in enumerate(others):
                p.resetBasePositionAndOrientation(b, [1000.0 + 10.0 * k, 1000.0, -1000.0], poses[k][1])
            _, _, _, _, seg = p.getCameraImage(
                self.cam.width, self.cam.height, self._view, self._proj, renderer=self.pb.ER_TINY_RENDERER
            )
        finally:
            for b, (pos, orn) in zip(others, poses, strict=True):
                p.resetBasePositionAndOrientation(b, pos, orn)
        solo = np.asarray(seg, dtype=np.int64).reshape(self.cam.height, self.cam.width)
        ys, xs = np.nonzero((solo >= 0) & ((solo & ((1 << 24) - 1)) == body))
        if ys.size == 0:
            return None
        return int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())


# A neighbour this much nearer than the object's own edge pixel hides part of the object. Where an
# object stands on a floor or table the depth is continuous across the contact, so the support
# in front of it does not count.
OCCLUSION_GAP_M = 0.03
OCCLUSION_GAP_REL = 0.03


def hidden_by_nearer(mask: np.ndarray, seg: np.ndarray, depth: np.ndarray) -> bool:
    """Whether some pixel on the outline of `mask` borders a pixel of another body that is
    clearly nearer to the camera: that body covers part of the object."""
    h, w = mask.shape
    pad_mask = np.pad(mask, 1, constant_values=False)
    pad_seg = np.pad(seg, 1, constant_values=-1)
    pad_depth = np.pad(depth, 1, constant_values=np.inf)
    nearer = depth - np.maximum(OCCLUSION_GAP_M, OCCLUSION_GAP_REL * depth)
    for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        window = (slice(1 + dy, 1 + dy + h), slice(1 + dx, 1 + dx + w))
        other = ~pad_mask[window] & (pad_seg[window] >= 0)
        if np.any(mask & other & (pad_depth[window] < nearer)):
            return True
    return False
