import Raster

/// The pages' text colours and contrast checks: WCAG 2.1 contrast, defined once in Raster.
public typealias KioskContrast = WCAGContrast
