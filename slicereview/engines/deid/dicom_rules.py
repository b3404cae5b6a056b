"""Which DICOM attributes a de-identified copy keeps, and which identifying ones it replaces.

The PS3.15 Basic Application Level Confidentiality Profile [DICOM-PS3.15, Annex E] says, per
attribute, to remove it (X), empty it (Z), replace it with a dummy (D) or a consistent new UID
(U), or keep it (K). slicereview applies it through an **allow-list**: a copy keeps only

* :data:`KEPT`: what display and the project need (the image pixel module, rescale and window
  values, LUTs, spacing and geometry, laterality and view, the SOP class), none of which the
  profile lists as identifying;
* :data:`KEPT_SEQUENCES`: the sequences those live in (functional groups, LUT sequences),
  with the same allow-list inside;
* :data:`REPLACED`: the Type 1 and 2 attributes of the patient, study and series modules
  that a valid object needs, replaced (D or U) by dicognito with the project's seed;
  :data:`EMPTIED` ones kept empty (Z);

and removes everything else, private tags and overlays included (X). That removes more than
the profile asks for (a device's serial number, the protocol name), never less.

Example
-------
>>> "PixelSpacing" in KEPT and "PatientName" in REPLACED and "InstitutionName" not in KEPT
True
"""

from __future__ import annotations

KEPT = frozenset({
    # SOP common, general image and series: what kind of object and image this is
    "SOPClassUID", "Modality", "ImageType", "InstanceNumber", "SeriesNumber",
    "AcquisitionNumber", "PatientOrientation", "ImageLaterality", "Laterality",
    "ViewPosition", "BodyPartExamined", "PresentationIntentType", "BurnedInAnnotation",
    "RecognizableVisualFeatures", "LossyImageCompression", "LossyImageCompressionRatio",
    "LossyImageCompressionMethod", "SpecificCharacterSet", "NumberOfFrames",
    "FrameIncrementPointer", "PositionReferenceIndicator",
    # image pixel module
    "SamplesPerPixel", "PhotometricInterpretation", "Rows", "Columns", "BitsAllocated",
    "BitsStored", "HighBit", "PixelRepresentation", "PlanarConfiguration", "PixelAspectRatio",
    "SmallestImagePixelValue", "LargestImagePixelValue", "PixelPaddingValue",
    "PixelPaddingRangeLimit", "RedPaletteColorLookupTableDescriptor",
    "GreenPaletteColorLookupTableDescriptor", "BluePaletteColorLookupTableDescriptor",
    "RedPaletteColorLookupTableData", "GreenPaletteColorLookupTableData",
    "BluePaletteColorLookupTableData", "SegmentedRedPaletteColorLookupTableData",
    "SegmentedGreenPaletteColorLookupTableData", "SegmentedBluePaletteColorLookupTableData",
    "ICCProfile", "ColorSpace", "PixelIntensityRelationship", "PixelIntensityRelationshipSign",
    # modality and VOI LUT: rescale, windows, LUTs
    "RescaleIntercept", "RescaleSlope", "RescaleType", "WindowCenter", "WindowWidth",
    "WindowCenterWidthExplanation", "VOILUTFunction", "PresentationLUTShape", "LUTDescriptor",
    "LUTData", "LUTExplanation", "ModalityLUTType", "Units",
    # spacing and geometry
    "PixelSpacing", "ImagerPixelSpacing", "NominalScannedPixelSpacing",
    "PixelSpacingCalibrationType", "PixelSpacingCalibrationDescription",
    "EstimatedRadiographicMagnificationFactor", "SliceThickness", "SpacingBetweenSlices",
    "ImagePositionPatient", "ImageOrientationPatient", "SliceLocation", "FrameOfReferenceUID",
    # functional groups (enhanced multi-frame objects)
    "DimensionIndexValues", "StackID", "InStackPositionNumber", "TemporalPositionIndex",
})

KEPT_SEQUENCES = frozenset({
    "ModalityLUTSequence", "VOILUTSequence", "SharedFunctionalGroupsSequence",
    "PerFrameFunctionalGroupsSequence", "PixelMeasuresSequence", "PlanePositionSequence",
    "PlaneOrientationSequence", "PixelValueTransformationSequence", "FrameVOILUTSequence",
    "FrameContentSequence", "PixelIntensityRelationshipLUTSequence",
})

#: Replaced by dicognito: person names and IDs by consistent pseudonyms, UIDs by consistent
#: new UIDs (class and transfer syntax UIDs stay).
REPLACED = frozenset({
    "PatientName", "PatientID", "StudyInstanceUID", "SeriesInstanceUID", "SOPInstanceUID",
})

#: Type 2 attributes of the patient and study modules, kept but empty.
EMPTIED = ("PatientBirthDate", "PatientSex", "StudyDate", "StudyTime", "ReferringPhysicianName",
           "StudyID", "AccessionNumber")

#: SOP classes of secondary captures (1.2.840.10008.5.1.4.1.1.7 and its multi-frame kinds).
SECONDARY_CAPTURE = "1.2.840.10008.5.1.4.1.1.7"
#: Modalities whose images often carry burned-in text.
BURNS_TEXT = {"US": "an ultrasound image", "SC": "a secondary capture",
              "XC": "an external-camera photograph", "ES": "an endoscopy image",
              "OT": "an image of modality OT (other)"}

#: Codes of the De-identification Method Code Sequence [DICOM-PS3.16, CID 7050].
BASIC_PROFILE = ("113100", "DCM", "Basic Application Confidentiality Profile")
#: De-identification Method (LO, at most 64 characters).
DEIDENTIFICATION_METHOD = "slicereview: PS3.15 Basic Profile (allow-list, dicognito)"
