// The 138 slots of PJRT_Api in table order, as X(Name, state): 1 implemented, 0 UNIMPLEMENTED,
// 2 implemented and returning void (declared below). Implemented slots have a
// function OPJ_<Name> in one of the section files; the others answer UNIMPLEMENTED naming the
// slot. plugin_main.cc builds the table from this list, so order and completeness live here.
#pragma once

#include "src/plugin/plugin.h"

#define OPJ_SLOTS(X) \
  X(Error_Destroy, 2) /* 1 */ \
  X(Error_Message, 2) /* 2 */ \
  X(Error_GetCode, 1) /* 3 */ \
  X(Plugin_Initialize, 1) /* 4 */ \
  X(Plugin_Attributes, 1) /* 5 */ \
  X(Event_Destroy, 1) /* 6 */ \
  X(Event_IsReady, 1) /* 7 */ \
  X(Event_Error, 1) /* 8 */ \
  X(Event_Await, 1) /* 9 */ \
  X(Event_OnReady, 1) /* 10 */ \
  X(Client_Create, 1) /* 11 */ \
  X(Client_Destroy, 1) /* 12 */ \
  X(Client_PlatformName, 1) /* 13 */ \
  X(Client_ProcessIndex, 1) /* 14 */ \
  X(Client_PlatformVersion, 1) /* 15 */ \
  X(Client_Devices, 1) /* 16 */ \
  X(Client_AddressableDevices, 1) /* 17 */ \
  X(Client_LookupDevice, 1) /* 18 */ \
  X(Client_LookupAddressableDevice, 1) /* 19 */ \
  X(Client_AddressableMemories, 1) /* 20 */ \
  X(Client_Compile, 1) /* 21 */ \
  X(Client_DefaultDeviceAssignment, 1) /* 22 */ \
  X(Client_BufferFromHostBuffer, 1) /* 23 */ \
  X(DeviceDescription_Id, 1) /* 24 */ \
  X(DeviceDescription_ProcessIndex, 1) /* 25 */ \
  X(DeviceDescription_Attributes, 1) /* 26 */ \
  X(DeviceDescription_Kind, 1) /* 27 */ \
  X(DeviceDescription_DebugString, 1) /* 28 */ \
  X(DeviceDescription_ToString, 1) /* 29 */ \
  X(Device_GetDescription, 1) /* 30 */ \
  X(Device_IsAddressable, 1) /* 31 */ \
  X(Device_LocalHardwareId, 1) /* 32 */ \
  X(Device_AddressableMemories, 1) /* 33 */ \
  X(Device_DefaultMemory, 1) /* 34 */ \
  X(Device_MemoryStats, 1) /* 35 */ \
  X(Memory_Id, 1) /* 36 */ \
  X(Memory_Kind, 1) /* 37 */ \
  X(Memory_DebugString, 1) /* 38 */ \
  X(Memory_ToString, 1) /* 39 */ \
  X(Memory_AddressableByDevices, 1) /* 40 */ \
  X(Executable_Destroy, 1) /* 41 */ \
  X(Executable_Name, 1) /* 42 */ \
  X(Executable_NumReplicas, 1) /* 43 */ \
  X(Executable_NumPartitions, 1) /* 44 */ \
  X(Executable_NumOutputs, 1) /* 45 */ \
  X(Executable_SizeOfGeneratedCodeInBytes, 1) /* 46 */ \
  X(Executable_GetCostAnalysis, 1) /* 47 */ \
  X(Executable_OutputMemoryKinds, 1) /* 48 */ \
  X(Executable_OptimizedProgram, 1) /* 49 */ \
  X(Executable_Serialize, 1) /* 50 */ \
  X(LoadedExecutable_Destroy, 1) /* 51 */ \
  X(LoadedExecutable_GetExecutable, 1) /* 52 */ \
  X(LoadedExecutable_AddressableDevices, 1) /* 53 */ \
  X(LoadedExecutable_Delete, 1) /* 54 */ \
  X(LoadedExecutable_IsDeleted, 1) /* 55 */ \
  X(LoadedExecutable_Execute, 1) /* 56 */ \
  X(Executable_DeserializeAndLoad, 1) /* 57 */ \
  X(LoadedExecutable_Fingerprint, 1) /* 58 */ \
  X(Buffer_Destroy, 1) /* 59 */ \
  X(Buffer_ElementType, 1) /* 60 */ \
  X(Buffer_Dimensions, 1) /* 61 */ \
  X(Buffer_UnpaddedDimensions, 1) /* 62 */ \
  X(Buffer_DynamicDimensionIndices, 1) /* 63 */ \
  X(Buffer_GetMemoryLayout, 1) /* 64 */ \
  X(Buffer_OnDeviceSizeInBytes, 1) /* 65 */ \
  X(Buffer_Device, 1) /* 66 */ \
  X(Buffer_Memory, 1) /* 67 */ \
  X(Buffer_Delete, 1) /* 68 */ \
  X(Buffer_IsDeleted, 1) /* 69 */ \
  X(Buffer_CopyToDevice, 1) /* 70 */ \
  X(Buffer_ToHostBuffer, 1) /* 71 */ \
  X(Buffer_IsOnCpu, 1) /* 72 */ \
  X(Buffer_ReadyEvent, 1) /* 73 */ \
  X(Buffer_UnsafePointer, 1) /* 74 */ \
  X(Buffer_IncreaseExternalReferenceCount, 1) /* 75 */ \
  X(Buffer_DecreaseExternalReferenceCount, 1) /* 76 */ \
  X(Buffer_OpaqueDeviceMemoryDataPointer, 1) /* 77 */ \
  X(CopyToDeviceStream_Destroy, 1) /* 78 */ \
  X(CopyToDeviceStream_AddChunk, 1) /* 79 */ \
  X(CopyToDeviceStream_TotalBytes, 1) /* 80 */ \
  X(CopyToDeviceStream_GranuleSize, 1) /* 81 */ \
  X(CopyToDeviceStream_CurrentBytes, 1) /* 82 */ \
  X(TopologyDescription_Create, 1) /* 83 */ \
  X(TopologyDescription_Destroy, 1) /* 84 */ \
  X(TopologyDescription_PlatformName, 1) /* 85 */ \
  X(TopologyDescription_PlatformVersion, 1) /* 86 */ \
  X(TopologyDescription_GetDeviceDescriptions, 1) /* 87 */ \
  X(TopologyDescription_Serialize, 1) /* 88 */ \
  X(TopologyDescription_Attributes, 1) /* 89 */ \
  X(Compile, 1) /* 90 */ \
  X(Executable_OutputElementTypes, 1) /* 91 */ \
  X(Executable_OutputDimensions, 1) /* 92 */ \
  X(Buffer_CopyToMemory, 1) /* 93 */ \
  X(Client_CreateViewOfDeviceBuffer, 1) /* 94 */ \
  X(Executable_Fingerprint, 1) /* 95 */ \
  X(Client_TopologyDescription, 1) /* 96 */ \
  X(Executable_GetCompiledMemoryStats, 1) /* 97 */ \
  X(Memory_Kind_Id, 1) /* 98 */ \
  X(ExecuteContext_Create, 1) /* 99 */ \
  X(ExecuteContext_Destroy, 1) /* 100 */ \
  X(Buffer_CopyRawToHost, 1) /* 101 */ \
  X(AsyncHostToDeviceTransferManager_Destroy, 1) /* 102 */ \
  X(AsyncHostToDeviceTransferManager_TransferData, 1) /* 103 */ \
  X(Client_CreateBuffersForAsyncHostToDevice, 1) /* 104 */ \
  X(AsyncHostToDeviceTransferManager_RetrieveBuffer, 1) /* 105 */ \
  X(AsyncHostToDeviceTransferManager_Device, 1) /* 106 */ \
  X(AsyncHostToDeviceTransferManager_BufferCount, 1) /* 107 */ \
  X(AsyncHostToDeviceTransferManager_BufferSize, 1) /* 108 */ \
  X(AsyncHostToDeviceTransferManager_SetBufferError, 1) /* 109 */ \
  X(AsyncHostToDeviceTransferManager_AddMetadata, 1) /* 110 */ \
  X(Client_DmaMap, 1) /* 111 */ \
  X(Client_DmaUnmap, 1) /* 112 */ \
  X(Client_CreateUninitializedBuffer, 1) /* 113 */ \
  X(Client_UpdateGlobalProcessInfo, 1) /* 114 */ \
  X(TopologyDescription_Deserialize, 1) /* 115 */ \
  X(Client_CreateAliasBuffer, 1) /* 116 */ \
  X(Client_FulfillAliasBuffer, 1) /* 117 */ \
  X(LoadedExecutable_GetDeviceAssignment, 1) /* 118 */ \
  X(Client_CreateErrorBuffer, 1) /* 119 */ \
  X(AsyncHostToDeviceTransferManager_TransferLiteral, 1) /* 120 */ \
  X(Buffer_CopyRawToHostFuture, 1) /* 121 */ \
  X(Device_PoisonExecution, 0) /* 122 */ \
  X(Device_CreateAsyncTrackingEvent, 1) /* 123 */ \
  X(AsyncTrackingEvent_Destroy, 1) /* 124 */ \
  X(Executable_GetCompileOptions, 1) /* 125 */ \
  X(Buffer_DonateWithControlDependency, 1) /* 126 */ \
  X(Event_Create, 1) /* 127 */ \
  X(Event_Set, 1) /* 128 */ \
  X(Device_GetAttributes, 1) /* 129 */ \
  X(Client_Load, 1) /* 130 */ \
  X(LoadedExecutable_AddressableDeviceLogicalIds, 1) /* 131 */ \
  X(Buffer_Bitcast, 1) /* 132 */ \
  X(Error_ForEachPayload, 1) /* 133 */ \
  X(TopologyDescription_Fingerprint, 1) /* 134 */ \
  X(Executable_ParameterMemoryKinds, 1) /* 135 */ \
  X(Device_ClearMemoryStats, 1) /* 136 */ \
  X(TopologyDescription_MakeCanonicalShapeForMemorySpace, 0) /* 137 */ \
  X(TopologyDescription_GetMemorySpaceKindIds, 1) /* 138 */

// Error_Destroy and Error_Message return void; every other slot returns PJRT_Error*.
void OPJ_Error_Destroy(PJRT_Error_Destroy_Args* args);
void OPJ_Error_Message(PJRT_Error_Message_Args* args);

#define OPJ_DECLARE_1(Name) PJRT_Error* OPJ_##Name(PJRT_##Name##_Args* args);
#define OPJ_DECLARE_0(Name)
#define OPJ_DECLARE_2(Name)
#define OPJ_DECLARE(Name, state) OPJ_DECLARE_##state(Name)
OPJ_SLOTS(OPJ_DECLARE)
