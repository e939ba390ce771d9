package mlkem

// DeviceTable is the table of the kernels' NTT factors (deviceTable).
func DeviceTable() []uint32 { return deviceTable() }
