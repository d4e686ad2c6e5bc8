"""The Qt-free service layer that the command line and the app both call: crawl set-up, training."""
