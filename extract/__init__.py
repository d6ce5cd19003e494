"""metalogic.extract: the world side of the pipeline.

PyBullet worlds (`simulate`), importers for frames, videos and EB-Navigation logs (`importers`),
the trajectory folder format (`trajectory`), Ultralytics tracking (`tracking`), scene facts
(`scene_facts`, `pipeline`), the tracker evaluation (`evaluate`) and the offline detector
(`detector`). Heavy packages (pybullet, OpenCV, Ultralytics) are imported only where used.
"""
